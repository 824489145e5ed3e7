/** Who is asking, and the roles an employment gives (http.md, Roles and visibility). */

/** Who is asking. Anonymous callers have no user; administrators see and may change everything. */
export interface Caller {
  userId: number | null;
  isAdmin: boolean;
  /** Organisation id -> the groups (roles) of the caller's approved employments there. */
  organisations: ReadonlyMap<number, ReadonlySet<string>>;
}
export const ANONYMOUS: Caller = { userId: null, isAdmin: false, organisations: new Map() };
/** The service itself (export): sees and renders every record as an administrator would. */
export const SERVICE: Caller = { userId: null, isAdmin: true, organisations: new Map() };

/** http.md: the roles that may create, change and delete a partner project's records. */
export const EDIT_ROLES: ReadonlySet<string> = new Set(['Admins', 'M&E Managers', 'Project Editors']);
export const ROLES = ['Admins', 'M&E Managers', 'Project Editors', 'User Managers', 'Enumerators', 'Users'] as const;

/** Organisations where the caller holds one of `roles`. */
export function organisationsWithRole(caller: Caller, roles: ReadonlySet<string>): number[] {
  return [...caller.organisations].filter(([, groups]) => [...groups].some((group) => roles.has(group))).map(([id]) => id);
}
