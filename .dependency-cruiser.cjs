/**
 * The house rules for imports (npm run lint, part of npm test): no circles, each layer only
 * leans on those below it (ARCHITECTURE.md): http -> query -> store -> engines, all on resources;
 * every package imported is declared in package.json, and the service's are not dev dependencies.
 */
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'Files that import each other in a circle.', from: {}, to: { circular: true } },
    { name: 'no-asking-which-engine', severity: 'error', comment: 'Only the engine folder knows the engines; everyone else uses its index.', from: { pathNot: '^src/store/engine/' }, to: { path: '^src/store/engine/(?!index[.]ts$)' } },
    { name: 'store-knows-no-http', severity: 'error', from: { path: '^src/store/' }, to: { path: '^src/(http|cli|commands)' } },
    { name: 'query-is-neither-sql-nor-http', severity: 'error', from: { path: '^src/query/' }, to: { path: '^src/(store|http|cli|commands)' } },
    { name: 'declarations-stand-alone', severity: 'error', comment: 'Resources declare; they do not read, route or parse.', from: { path: '^src/resources/' }, to: { path: '^src/(store|http|query|cli|commands|ops)' } },
    { name: 'reports-know-no-http', severity: 'error', comment: 'Report models and renderers read the store and lay out files; routes are http/report-routes.ts.', from: { path: '^src/reports/' }, to: { path: '^src/(http|cli|commands)' } },
    { name: 'ops-know-no-requests', severity: 'error', comment: 'Logs, metrics and redaction are fed by the server; they import none of it.', from: { path: '^src/ops/' }, to: { path: '^src/(http|store|query|reports|commands|cli)' } },
    { name: 'no-non-package-json', severity: 'error', comment: 'A package imported but not declared in package.json: it is there only because something else brought it, and may go with it.', from: {}, to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] } },
    { name: 'not-to-dev-dep', severity: 'error', comment: 'The service (src/) imports no dev dependency: a production install (npm ci --omit=dev) has none. Type-only imports are erased.', from: { path: '^src/' }, to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] } },
    { name: 'service-without-demo', severity: 'error', comment: 'The demo generator is not on the service\'s runtime path (cli.ts loads it on demand).', from: { path: '^src/', pathNot: '^src/(cli|commands/demo)[.]ts$' }, to: { path: '^demo/' } },
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
  },
};
