import { Type } from '@sinclair/typebox';
import { codeLabel, codeName } from '../codelists/index.ts';
import { pythonFloat } from '../text/python.ts';
import { one, code, derived, fk, id, int, text, type Row, ownedByProject, resource } from './define.ts';

/** codelists/README.md: "Latitude: …, Longitude: …, Country: …" + " (name)"; 0 or null is missing. */
function locationText(location: Row | null): string {
  const latitude = location?.latitude ? pythonFloat(location.latitude) : 'No latitude specified';
  const longitude = location?.longitude ? pythonFloat(location.longitude) : 'No longitude specified';
  const country = location?.country ? codeName('country', location.country) : 'No country specified';
  const name = location?.name ? ` (${location.name})` : '';
  return `Latitude: ${latitude}, Longitude: ${longitude}, Country: ${country}${name}`;
}

const administrativeLocation = resource({
  name: 'administrative_location',
  title: 'Administrative Location',
  visibility: ownedByProject('location', 'project'),
  fields: {
    id: id(),
    location: fk('project_location', { required: true }),
    location_unicode: derived(Type.String(), (row, ctx, related) => locationText(related.location)),
    vocabulary: code('geographic_vocabulary'),
    vocabulary_label: derived(Type.String(), (row) => codeLabel('geographic_vocabulary', row.vocabulary)),
    code: text({ maxLength: 25, index: 'search' }),
    // RSR: a PositiveSmallIntegerField.
    level: int({ null: true, min: 0, max: 32767 }),
  },
  related: { location: one('location', 'project_location') },
});
export default administrativeLocation;
