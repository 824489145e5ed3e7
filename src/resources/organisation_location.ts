import { code, decimal, fk, id, int, text, type Entity } from './define.ts';

/** An organisation's address; written and shown inside organisation records (`locations`). */
const organisationLocation: Entity = {
  table: 'organisation_location',
  fields: {
    id: id(),
    latitude: decimal(22, 16, { null: true }),
    longitude: decimal(22, 16, { null: true }),
    city: text({ maxLength: 255 }),
    state: text({ maxLength: 255 }),
    address_1: text({ maxLength: 255 }),
    address_2: text({ maxLength: 255 }),
    postcode: text({ maxLength: 10 }),
    iati_country: code('country'),
    /** 1-based position in the service's country table (codelists/country.json). */
    country: int({ null: true, min: 1 }),
    location_target: fk('organisation', { required: true }),
  },
};
export default organisationLocation;
