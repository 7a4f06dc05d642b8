import type { BulkItemInput, BulkOutcome } from '../http/wire/bulk.js';
import { keyOf, touches, writtenKeys } from './chunk-keys.js';

const item = (Record: Record<string, unknown>): BulkItemInput => ({ Op: 'upsert', Record });
const outcome = (index: number, id: string | null, status = 200): BulkOutcome => ({ index, status, id, problem: null });

describe('the keys that keep a chunk of bulk writes from being written beside the commit of the chunk before it', () => {
  it('takes two values the unique indexes take for one as one key: case, accents, compatibility forms, spaces around', () => {
    expect(keyOf(' Émile ')).toBe(keyOf('emile'));
    expect(keyOf('STRASSE')).toBe(keyOf('straße'));
    expect(keyOf('ａｄｍｉｎ')).toBe(keyOf('Admin'));
    expect(keyOf('E-100')).not.toBe(keyOf('E-1000'));
  });

  it('are the IDs, ExternalIDs and user names of the records a chunk wrote, and the IDs its outcomes answered', () => {
    const keys = writtenKeys(
      [item({ ExternalID: 'E-1', UserName: 'Ada', FirstName: 'Ada', PrimaryOrganizationID: 'org-1' }), item({ ID: 'id-2', PrimaryTitle: 'Lead' })],
      [outcome(0, 'id-1'), outcome(1, 'id-2'), outcome(2, null, 400)],
      ['ExternalID', 'UserName'],
    );
    expect([...keys].sort()).toEqual(['ada', 'e-1', 'id-1', 'id-2']);
    // What a record merely refers to (its organization) or holds (a name, a title) is not its key.
    expect(keys.has('org-1')).toBe(false);
    expect(keys.has('lead')).toBe(false);
    // A collection without user names does not take them for keys.
    expect(writtenKeys([item({ ExternalID: 'E-1', UserName: 'Ada' })], [], ['ExternalID']).has('ada')).toBe(false);
  });

  it('are found in any value of a later record: its key, a reference, a nested ExternalRefs, a list', () => {
    const keys = new Set([keyOf('E-1'), keyOf('Ada')]);
    expect(touches([{ ExternalID: 'E-2', FirstName: 'Bob' }], keys)).toBe(false);
    expect(touches([{ ExternalID: 'e-1' }], keys)).toBe(true);
    expect(touches([{ ExternalID: 'E-2', UserName: 'ADA' }], keys)).toBe(true);
    expect(touches([{ ExternalID: 'E-2', ExternalRefs: { PrimaryReportsTo: 'E-1' } }], keys)).toBe(true);
    expect(touches([{ ExternalID: 'E-2', Tags: ['x', ' E-1 '] }], keys)).toBe(true);
    // Rows that cannot be read, numbers, blanks and an empty set name nothing.
    expect(touches([null, { Weight: 1, Note: '  ' }], keys)).toBe(false);
    expect(touches([{ ExternalID: 'E-1' }], new Set())).toBe(false);
  });
});
