import { EVENT_TYPES_PATTERN, parseTypes, TYPE_PATTERN } from './event-types.js';

/** Whether the service takes `text` as EventTypes (webhooks.service.ts): at least one type, each well formed. */
const taken = (text: string) => parseTypes(text).length > 0 && parseTypes(text).every((t) => TYPE_PATTERN.test(t));

describe('EVENT_TYPES_PATTERN (what the OpenAPI document says EventTypes is)', () => {
  const pattern = new RegExp(EVENT_TYPES_PATTERN);
  it('admits every list the service takes: types separated by blanks or commas', () => {
    for (const text of [
      '*',
      'individual.updated',
      'dialog.held period.closed',
      'goal.*,task.completed',
      ' individual.created , individual.deleted\n',
      'x-y.z-1',
    ]) {
      expect({ text, taken: taken(text) }).toEqual({ text, taken: true });
      expect({ text, admitted: pattern.test(text) }).toEqual({ text, admitted: true });
    }
  });
  it('refuses what the service refuses: nothing, or a malformed type', () => {
    for (const text of ['', ' , ', 'individual', 'Individual.updated', 'goal.*.x', 'goal.created;task.completed']) {
      expect({ text, taken: taken(text) }).toEqual({ text, taken: false });
      expect({ text, admitted: pattern.test(text) }).toEqual({ text, admitted: false });
    }
  });
});
