/**
 * The derived names of a person, one function each, used wherever a name is shown: an
 * individual's FullName, FormalName and FullOrderedName, the AuthorName of a comment, the
 * FullName of a goal's owner, the names of members and of the last comment's author.
 */
const present = (s: string | null | undefined): s is string => typeof s === 'string' && s.trim() !== '';

/** "First Last" (just the one that is present when the other is blank). */
export function fullName(first: string | null | undefined, last: string | null | undefined): string {
  return [first, last].filter(present).join(' ');
}

/** "Prefix First Last, Suffix", with only the parts that are present. */
export function formalName(prefix: string | null, first: string | null, last: string | null, suffix: string | null): string {
  const main = [prefix, first, last].filter(present).join(' ');
  return present(suffix) ? (main ? `${main}, ${suffix}` : suffix) : main;
}

/** "Last, First" (just the one that is present when the other is blank). */
export function fullOrderedName(first: string | null, last: string | null): string {
  return [last, first].filter(present).join(', ');
}

/** The FullName of a person row, or null when there is no row. */
export function nameOf(person: { firstName: string | null; lastName: string | null } | null | undefined): string | null {
  return person ? fullName(person.firstName, person.lastName) : null;
}
