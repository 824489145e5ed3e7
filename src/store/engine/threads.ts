/**
 * How a thread of the embedded engine is started: its compiled file, or, running from the
 * TypeScript sources, an entry that registers tsx before it loads the thread's own source.
 */
const fromSources = import.meta.url.endsWith('.ts');

/** The Worker's entry and options for the thread in `name` (a file beside this one, without its extension). */
export function threadStart(name: string): [string | URL, { eval: boolean }] {
  const file = new URL(`./${name}${fromSources ? '.ts' : '.js'}`, import.meta.url);
  return fromSources
    ? [`import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(file.href)}); })`, { eval: true }]
    : [file, { eval: false }];
}
