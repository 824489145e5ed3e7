/**
 * The module the typed client (client.ts) imports its types from. test/openapi-tools.test.ts
 * maps it to the types openapi-typescript generates from the served document, and checks the
 * client strictly against them; this loose stand-in is only for the repository's own type-check
 * (npm test's `tsc`), which has no document to generate them from.
 */
declare module 'rsr-api-openapi' {
  /* eslint-disable @typescript-eslint/no-explicit-any -- the real types are generated in the test */
  export type paths = any;
  export type components = any;
}
