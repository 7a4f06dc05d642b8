import { charsetOf, checkJsonBody, checkXmlBody, isAcceptedCharset, MAX_BODY_DEPTH, xmlRootNamespace } from './body-limits.js';

// The depth part of the checks alone (every other limit lifted).
const depthOnly = (limit: number) => ({ depth: limit, membersPerObject: Infinity, totalMembers: Infinity, stringBytes: Infinity });
const jsonDepthExceeds = (text: Uint8Array | string, limit = MAX_BODY_DEPTH) => checkJsonBody(text, depthOnly(limit))?.code === 'body-too-deep';
const xmlDepthExceeds = (text: string, limit = MAX_BODY_DEPTH) => checkXmlBody(text, depthOnly(limit))?.code === 'body-too-deep';

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

describe('body shape limits', () => {
  const small = { depth: 64, membersPerObject: 3, totalMembers: 5, stringBytes: 8 };

  it('counts the members of each JSON object and array, not what is inside strings', () => {
    expect(checkJsonBody('{"a":1,"b":2,"c":3}', small)).toBeNull();
    expect(checkJsonBody('{"a":1,"b":2,"c":3,"d":4}', small)?.code).toBe('body-too-complex');
    expect(checkJsonBody('[1,2,3]', small)).toBeNull();
    expect(checkJsonBody('[1,2,3,4]', small)?.detail).toContain('more than 3 members');
    expect(checkJsonBody('{"a":"x,y:z","b":[]}', small)).toBeNull();
    expect(checkJsonBody(Buffer.from('{"a":{"b":1,"c":2},"d":[1,2]}'), small)).toBeNull();
  });

  it('counts keys and items across the whole body', () => {
    expect(checkJsonBody('{"a":{"b":1,"c":2},"d":[1,2,3]}', small)?.detail).toBe('The body has more than 5 keys and array items');
  });

  it('measures each string and key as sent, escapes included', () => {
    expect(checkJsonBody('{"a":"12345678"}', small)).toBeNull();
    expect(checkJsonBody('{"a":"123456789"}', small)?.detail).toContain('longer than 8 bytes');
    expect(checkJsonBody('{"123456789":1}', small)?.code).toBe('body-too-complex');
    expect(checkJsonBody('{"a":"\\u00e9\\u00e9"}', small)?.code).toBe('body-too-complex');
  });

  it('counts child elements and attributes of each XML element, and in all', () => {
    expect(checkXmlBody('<R><a/><b/><c/></R>', small)).toBeNull();
    expect(checkXmlBody('<R><a/><b/><c/><d/></R>', small)?.code).toBe('body-too-complex');
    expect(checkXmlBody('<R x="1" y="2"><a/><b/></R>', small)?.code).toBe('body-too-complex');
    expect(checkXmlBody('<R><a><x/><y/></a><b><x/><y/></b></R>', small)?.detail).toBe('The body has more than 5 XML elements and attributes');
    expect(checkXmlBody('<R>123456789</R>', small)?.detail).toContain('longer than 8 bytes');
    expect(checkXmlBody('<R a="123456789"/>', small)?.code).toBe('body-too-complex');
  });

  it('refuses what is not one well-formed UTF-8 XML 1.0 document', () => {
    expect(checkXmlBody('<R/><R/>')?.detail).toBe('The XML body has more than one root element');
    expect(checkXmlBody('<R></R><R></R>')?.code).toBe('malformed-body');
    expect(checkXmlBody('<R>\u0001</R>')?.detail).toContain('U+0001');
    expect(checkXmlBody('<R>&#x1F;</R>')?.detail).toContain('&#x1F;');
    expect(checkXmlBody('<R>&#27;</R>')?.code).toBe('malformed-body');
    expect(checkXmlBody('<?xml version="1.0" encoding="ISO-8859-1"?><R/>')?.detail).toContain('"ISO-8859-1"');
    for (const ok of [
      '<?xml version="1.0" encoding="UTF-8"?><R/>',
      "<?xml version='1.0' encoding='utf-8'?><R/>",
      '<?xml version="1.0"?><R/>',
      '<R>tab\tnewline\n&#x1F600;&#10;&#13;&#9;</R>',
    ]) {
      expect(checkXmlBody(ok)).toBeNull();
    }
  });

  it('finds the namespace the root element is in', () => {
    expect(xmlRootNamespace('<?xml version="1.0"?><!-- c --><Site xmlns="urn:a" xmlns:i="urn:i"/>')).toBe('urn:a');
    expect(xmlRootNamespace('<p:Site xmlns="urn:default" xmlns:p="urn:p"><p:Name/></p:Site>')).toBe('urn:p');
    expect(xmlRootNamespace("<Site xmlns:i='urn:i'><Name/></Site>")).toBeNull();
    expect(xmlRootNamespace('not xml')).toBeNull();
  });
});
