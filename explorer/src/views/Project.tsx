/** A project, as the lists show it: its records in each list tied to projects, and its charts. */
import { Link } from '../components';
import type { ResourceSpec } from '../spec';
import { Charts } from './Charts';

export function Project({ specs, id }: { specs: Map<string, ResourceSpec>; id: string }) {
  const tied = [...specs.values()].filter((spec) => spec.fields.some((field) => field.name === 'project' && field.references === 'project'));
  return (
    <section aria-labelledby="project-title">
      <h1 id="project-title" tabIndex={-1}>Project {id}</h1>
      <ul class="chips" aria-label="The project's records">
        {tied.map((spec) => (
          <li>
            <Link href={`/explore/${spec.name}/?project=${encodeURIComponent(id)}`}>{spec.title}</Link>
          </li>
        ))}
      </ul>
      <Charts project={id} heading={false} />
    </section>
  );
}
