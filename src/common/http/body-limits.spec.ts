import { charsetOf, isAcceptedCharset, jsonDepthExceeds, MAX_BODY_DEPTH, xmlDepthExceeds } from './body-limits.js';

const nestedJson = (depth: number) => '{"X":' + '['.repeat(depth - 1) + ']'.repeat(depth - 1) + '}';
const nestedXml = (depth: number) => '<a>'.repeat(depth) + '</a>'.repeat(depth);

describe('body nesting limit', () => {
  it('lets JSON nested exactly to the limit through and refuses one level more', () => {
    expect(jsonDepthExceeds(nestedJson(MAX_BODY_DEPTH))).toBe(false);
    expect(jsonDepthExceeds(nestedJson(MAX_BODY_DEPTH + 1))).toBe(true);
    expect(jsonDepthExceeds(Buffer.from(nestedJson(MAX_BODY_DEPTH + 1)))).toBe(true);
  });

  it('refuses the 1,500-deep body that overflowed validation, and a megabyte of brackets, in a single pass', () => {
    expect(jsonDepthExceeds('{"UserName":"x","Password":"y","X":' + '['.repeat(1500) + ']'.repeat(1500) + '}')).toBe(true);
    expect(jsonDepthExceeds(Buffer.alloc(1024 * 1024, '['))).toBe(true);
  });

  it('does not count brackets inside strings, including after escaped quotes', () => {
    const inString = JSON.stringify({ Name: '['.repeat(200) + '\\"{{{{' + '{'.repeat(200) });
    expect(jsonDepthExceeds(inString)).toBe(false);
    expect(jsonDepthExceeds(Buffer.from(inString))).toBe(false);
  });

  it('counts wide documents by depth, not by size', () => {
    const wide = JSON.stringify(Array.from({ length: 5000 }, (_, i) => ({ i, tags: [[i]] })));
    expect(jsonDepthExceeds(wide)).toBe(false);
  });

  it('counts XML elements, not self-closing ones, comments, CDATA or > in attribute values', () => {
    expect(xmlDepthExceeds(nestedXml(MAX_BODY_DEPTH))).toBe(false);
    expect(xmlDepthExceeds(nestedXml(MAX_BODY_DEPTH + 1))).toBe(true);
    const tricky =
      '<?xml version="1.0" encoding="utf-8"?><!-- <a><a><a> --><Root a="x>y" b=\'/>\'>' +
      '<b/>'.repeat(500) +
      '<![CDATA[' +
      '<c>'.repeat(500) +
      ']]><i:nil xmlns:i="urn:x"/></Root>';
    expect(xmlDepthExceeds(tricky, 2)).toBe(false);
    expect(xmlDepthExceeds('<Root><x a=">"><y/></x></Root>', 1)).toBe(true);
  });
});

describe('body charset', () => {
  it.each([
    ['application/json', null, true],
    ['application/json; charset=utf-8', 'utf-8', true],
    ['application/json;charset="UTF-8"', 'utf-8', true],
    ['text/xml; charset=utf8', 'utf8', false],
    ['application/json; charset=utf-7', 'utf-7', false],
    ['application/xml; charset=iso-8859-1', 'iso-8859-1', false],
    ['application/json; charset=utf-16le', 'utf-16le', false],
    ['application/json; charset=', '', false],
  ])('%s names %j: accepted %s', (contentType, charset, accepted) => {
    expect(charsetOf(contentType)).toBe(charset);
    expect(isAcceptedCharset(charsetOf(contentType))).toBe(accepted);
  });
});
