import { RESOURCES } from '../src/resources/index.ts';
import { storedFields } from '../src/resources/define.ts';
for (const r of RESOURCES) {
  const f = storedFields(r);
  const ord = f.filter(([, x]) => x.orderable).map(([n]) => n);
  const codes = f.filter(([, x]) => x.codelist || (x as any).choices || x.type === 'bool').map(([n]) => n);
  console.log(r.name, 'orderable', ord.length, ord.join(','), '| codes', codes.join(','));
}
