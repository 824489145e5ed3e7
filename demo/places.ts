/**
 * Real places, so that locations land where a project could be: each has its ISO country code,
 * approximate coordinates and, for some, the name as written locally (the non-Latin text of the demo).
 */

import type { Rng } from './random.ts';

export interface Place {
  name: string;
  country: string;
  lat: number;
  lon: number;
  /** The name in the local script, when that is not Latin. */
  local?: string;
  /** Typical seat of funders and international NGOs rather than of project work. */
  donor?: boolean;
}

type Row = [name: string, country: string, lat: number, lon: number, local?: string];

const FIELD: Row[] = [
  ['Nairobi', 'KE', -1.2864, 36.8172],
  ['Kisumu', 'KE', -0.0917, 34.768],
  ['Mombasa', 'KE', -4.0435, 39.6682],
  ['Kampala', 'UG', 0.3476, 32.5825],
  ['Gulu', 'UG', 2.7724, 32.2881],
  ['Dar es Salaam', 'TZ', -6.7924, 39.2083],
  ['Arusha', 'TZ', -3.3869, 36.683],
  ['Addis Ababa', 'ET', 9.03, 38.74, 'አዲስ አበባ'],
  ['Bahir Dar', 'ET', 11.5742, 37.3614, 'ባሕር ዳር'],
  ['Kigali', 'RW', -1.9441, 30.0619],
  ['Bujumbura', 'BI', -3.3614, 29.3599],
  ['Lilongwe', 'MW', -13.9626, 33.7741],
  ['Blantyre', 'MW', -15.7861, 35.0058],
  ['Lusaka', 'ZM', -15.3875, 28.3228],
  ['Maputo', 'MZ', -25.9692, 32.5732],
  ['Beira', 'MZ', -19.8436, 34.8389],
  ['Harare', 'ZW', -17.8252, 31.0335],
  ['Ouagadougou', 'BF', 12.3714, -1.5197],
  ['Bobo-Dioulasso', 'BF', 11.1771, -4.2979],
  ['Bamako', 'ML', 12.6392, -8.0029],
  ['Ségou', 'ML', 13.4317, -6.2157],
  ['Niamey', 'NE', 13.5116, 2.1254],
  ['Dakar', 'SN', 14.7167, -17.4677],
  ['Saint-Louis', 'SN', 16.0179, -16.4896],
  ['Thiès', 'SN', 14.7886, -16.926],
  ['Accra', 'GH', 5.6037, -0.187],
  ['Tamale', 'GH', 9.4008, -0.8393],
  ['Kumasi', 'GH', 6.6885, -1.6244],
  ['Abidjan', 'CI', 5.36, -4.0083],
  ['Bouaké', 'CI', 7.6906, -5.0303],
  ['Lagos', 'NG', 6.5244, 3.3792],
  ['Kano', 'NG', 12.0022, 8.592],
  ['Cotonou', 'BJ', 6.3703, 2.3912],
  ['Lomé', 'TG', 6.1319, 1.2228],
  ['Freetown', 'SL', 8.4657, -13.2317],
  ['Monrovia', 'LR', 6.3156, -10.8074],
  ['Kinshasa', 'CD', -4.4419, 15.2663],
  ['Goma', 'CD', -1.6585, 29.2205],
  ['Juba', 'SS', 4.8594, 31.5713],
  ['Khartoum', 'SD', 15.5007, 32.5599, 'الخرطوم'],
  ['Antananarivo', 'MG', -18.8792, 47.5079],
  ['Bogotá', 'CO', 4.711, -74.0721],
  ['Medellín', 'CO', 6.2442, -75.5812],
  ['Popayán', 'CO', 2.4448, -76.6147],
  ['Lima', 'PE', -12.0464, -77.0428],
  ['Cusco', 'PE', -13.532, -71.9675],
  ['Cajamarca', 'PE', -7.1638, -78.5003],
  ['La Paz', 'BO', -16.4897, -68.1193],
  ['Cochabamba', 'BO', -17.4139, -66.1653],
  ['Quito', 'EC', -0.1807, -78.4678],
  ['Tegucigalpa', 'HN', 14.0723, -87.1921],
  ['Managua', 'NI', 12.1149, -86.2362],
  ['Matagalpa', 'NI', 12.9256, -85.9175],
  ['Ciudad de Guatemala', 'GT', 14.6349, -90.5069],
  ['Quetzaltenango', 'GT', 14.8347, -91.5181],
  ['San Salvador', 'SV', 13.6929, -89.2182],
  ['Port-au-Prince', 'HT', 18.5944, -72.3074],
  ['Asunción', 'PY', -25.2637, -57.5759],
  ['Kathmandu', 'NP', 27.7172, 85.324, 'काठमाडौं'],
  ['Pokhara', 'NP', 28.2096, 83.9856, 'पोखरा'],
  ['Dhaka', 'BD', 23.8103, 90.4125, 'ঢাকা'],
  ['Khulna', 'BD', 22.8456, 89.5403, 'খুলনা'],
  ['Hà Nội', 'VN', 21.0278, 105.8342],
  ['Huế', 'VN', 16.4637, 107.5909],
  ['Phnom Penh', 'KH', 11.5564, 104.9282, 'ភ្នំពេញ'],
  ['Vientiane', 'LA', 17.9757, 102.6331, 'ວຽງຈັນ'],
  ['Yogyakarta', 'ID', -7.7956, 110.3695],
  ['Kupang', 'ID', -10.1772, 123.607],
  ['Davao', 'PH', 7.1907, 125.4553],
  ['Kabul', 'AF', 34.5553, 69.2075, 'کابل'],
  ['Multan', 'PK', 30.1575, 71.5249, 'ملتان'],
  ['Sana’a', 'YE', 15.3694, 44.191, 'صنعاء'],
  ['Amman', 'JO', 31.9454, 35.9284, 'عمّان'],
  ['Ramallah', 'PS', 31.9038, 35.2034, 'رام الله'],
  ['Asyut', 'EG', 27.181, 31.1837, 'أسيوط'],
  ['Marrakech', 'MA', 31.6295, -7.9811],
];

const DONOR: Row[] = [
  ['Amsterdam', 'NL', 52.3676, 4.9041],
  ['Utrecht', 'NL', 52.0907, 5.1214],
  ['Den Haag', 'NL', 52.0705, 4.3007],
  ['Wageningen', 'NL', 51.9692, 5.6654],
  ['London', 'GB', 51.5072, -0.1276],
  ['Bruxelles', 'BE', 50.8503, 4.3517],
  ['Paris', 'FR', 48.8566, 2.3522],
  ['Genève', 'CH', 46.2044, 6.1432],
  ['Zürich', 'CH', 47.3769, 8.5417],
  ['Stockholm', 'SE', 59.3293, 18.0686],
  ['København', 'DK', 55.6761, 12.5683],
  ['Oslo', 'NO', 59.9139, 10.7522],
  ['Berlin', 'DE', 52.52, 13.405],
  ['Bonn', 'DE', 50.7374, 7.0982],
  ['Madrid', 'ES', 40.4168, -3.7038],
  ['Washington', 'US', 38.9072, -77.0369],
  ['New York', 'US', 40.7128, -74.006],
  ['Ottawa', 'CA', 45.4215, -75.6972],
];

const toPlace = (donor: boolean) => ([name, country, lat, lon, local]: Row): Place =>
  local === undefined ? { name, country, lat, lon, donor } : { name, country, lat, lon, local, donor };

/** Where projects happen. */
export const FIELD_PLACES: readonly Place[] = FIELD.map(toPlace(false));
/** Where many organisations have their offices. */
export const DONOR_PLACES: readonly Place[] = DONOR.map(toPlace(true));

/** Region codes for a country (OECD DAC regions of region.json), for recipient regions that fit the project. */
export const REGION_OF_COUNTRY: Readonly<Record<string, string>> = {
  KE: '298', UG: '298', TZ: '298', ET: '298', RW: '298', BI: '298', MW: '298', ZM: '298', MZ: '298',
  ZW: '298', BF: '298', ML: '298', NE: '298', SN: '298', GH: '298', CI: '298', NG: '298', BJ: '298',
  TG: '298', SL: '298', LR: '298', CD: '298', SS: '298', SD: '298', MG: '298', MA: '298', EG: '298',
  CO: '489', PE: '489', BO: '489', EC: '489', PY: '489',
  HN: '389', NI: '389', GT: '389', SV: '389', HT: '389',
  NP: '689', BD: '689', AF: '689', PK: '689',
  VN: '798', KH: '798', LA: '798', ID: '798', PH: '798',
  YE: '589', JO: '589', PS: '589',
};

/** How people write a country in a title: the code list's formal names are awkward there. */
const SHORT_COUNTRY_NAMES: Readonly<Record<string, string>> = {
  TZ: 'Tanzania', CI: 'Côte d’Ivoire', CD: 'DR Congo', BO: 'Bolivia', VN: 'Vietnam', LA: 'Laos',
  PS: 'Palestine', GB: 'United Kingdom', US: 'United States',
};

/** A country's everyday name, from its code-list name: 'Niger (The)' → 'Niger'. */
export function shortCountryName(code: string, listName: string): string {
  return SHORT_COUNTRY_NAMES[code] ?? listName.replace(/\s*\(.*\)$/, '').replace(/,.*$/, '');
}

/** The state, province or region a place lies in, where addresses usually name one. */
export const STATE_OF_PLACE: Readonly<Record<string, string>> = {
  Nairobi: 'Nairobi County', Kisumu: 'Kisumu County', Mombasa: 'Mombasa County', Kampala: 'Central Region',
  Gulu: 'Northern Region', 'Dar es Salaam': 'Dar es Salaam Region', Arusha: 'Arusha Region', 'Bahir Dar': 'Amhara',
  Bogotá: 'Cundinamarca', Medellín: 'Antioquia', Popayán: 'Cauca', Lima: 'Lima', Cusco: 'Cusco', Cajamarca: 'Cajamarca',
  'La Paz': 'La Paz', Cochabamba: 'Cochabamba', Quetzaltenango: 'Quetzaltenango', Matagalpa: 'Matagalpa',
  Kathmandu: 'Bagmati', Pokhara: 'Gandaki', Dhaka: 'Dhaka Division', Khulna: 'Khulna Division',
  Yogyakarta: 'DI Yogyakarta', Kupang: 'Nusa Tenggara Timur', Davao: 'Davao del Sur', Huế: 'Thừa Thiên Huế',
  Ouagadougou: 'Centre', 'Bobo-Dioulasso': 'Hauts-Bassins', Ségou: 'Ségou', Thiès: 'Thiès', 'Saint-Louis': 'Saint-Louis',
  Tamale: 'Northern Region', Kumasi: 'Ashanti', Kano: 'Kano State', Lagos: 'Lagos State', Goma: 'Nord-Kivu',
  Marrakech: 'Marrakech-Safi', Amsterdam: 'Noord-Holland', Utrecht: 'Utrecht', 'Den Haag': 'Zuid-Holland',
  Wageningen: 'Gelderland', Genève: 'Genève', Zürich: 'Zürich', Bonn: 'Nordrhein-Westfalen', Ottawa: 'Ontario',
  Washington: 'District of Columbia', 'New York': 'New York',
};

const SPANISH_SPEAKING = new Set(['CO', 'PE', 'BO', 'EC', 'HN', 'NI', 'GT', 'SV', 'PY', 'ES']);
const FRENCH_SPEAKING = new Set(['SN', 'BF', 'ML', 'NE', 'CI', 'BJ', 'TG', 'CD', 'BI', 'HT', 'MG', 'MA', 'FR', 'BE', 'CH']);

/** The language addresses and names of a country are mostly written in, among those of the demo. */
export function languageOfCountry(country: string): 'en' | 'es' | 'fr' | 'nl' {
  if (country === 'NL') return 'nl';
  if (SPANISH_SPEAKING.has(country)) return 'es';
  if (FRENCH_SPEAKING.has(country)) return 'fr';
  return 'en';
}

/** Coordinates near a place, always with a fractional part (a whole number would read as an integer). */
export function near(value: number, spread: number, rng: Rng): number {
  const x = Math.round((value + (rng.float() * 2 - 1) * spread) * 10000) / 10000;
  return Number.isInteger(x) ? x + 0.0001 : x;
}
