/**
 * Formatted strings of the requests: ISO 3166 codes (4.3 idPais, idRegion), e-mails (4.3 email, 4.1
 * emailsNotificacion) and dictionaries (2: string keys to string values; datosAdicionales).
 */
import fc from 'fast-check';

/** Real ISO 3166-1 alpha-2 codes. */
export const validCountry = fc.constantFrom('SV', 'GT', 'HN', 'NI', 'CR', 'PA', 'MX', 'US', 'CO', 'ES', 'AR', 'BR');

/**
 * Never an alpha-2 code under any reading: the alpha-3 code, a name, one letter, digits, punctuation. Lowercase
 * ("sv") is left to `nearMissCountry`: ISO writes codes in capitals, but some systems compare them case-blind.
 */
export const invalidCountry = fc.constantFrom('SLV', 'El Salvador', 'S', '', 'S1', '22', 'S-V', 'SV-SS', 'SVX');

export const nearMissCountry = fc.constantFrom('sv', 'Sv', 'sV');

/** Real ISO 3166-2 subdivision codes (country, hyphen, one to three letters or digits). */
export const REGIONS = ['SV-SS', 'SV-LI', 'SV-SA', 'GT-GU', 'HN-FM', 'CR-SJ', 'MX-CMX', 'US-CA', 'ES-M', 'CO-DC'] as const;

export const validRegion = fc.constantFrom(...REGIONS);

/** A country and one of its regions, so that a target checking that they match has nothing to refuse. */
export const validCountryRegion = validRegion.map((idRegion) => ({ idPais: idRegion.slice(0, 2), idRegion }));

/** Never an ISO 3166-2 code: no country prefix, wrong separator, a name, too long a subdivision. */
export const invalidRegion = fc.constantFrom('SS', 'SV_SS', 'SV SS', 'SV-', '-SS', 'San Salvador', 'SVSS', 'SV-SSSS', 'SLV-SS', '');

const label = fc.stringMatching(/^[a-z][a-z0-9]{0,9}$/);

/** Plain addresses every validator accepts: local@domain.tld. */
export const validEmail = fc.tuple(label, label, fc.constantFrom('com', 'net', 'org', 'sv', 'test')).map(([l, d, t]) => `${l}@${d}.${t}`);

/** Not an address: no @, two @, no domain, spaces. */
export const invalidEmail = fc.constantFrom(
  'ana',
  'ana@',
  '@example.com',
  'ana@@example.com',
  'ana example@example.com',
  'ana@example',
  '',
);

/** Comma-separated addresses (4.1 emailsNotificacion). */
export const emailList = fc.array(validEmail, { minLength: 1, maxLength: 4 }).map((list) => list.join(','));

/** A dictionary (2): string keys to string values. */
export const dictionary: fc.Arbitrary<Record<string, string>> = fc.dictionary(label, fc.string({ maxLength: 40 }), { maxKeys: 5 });

/** Not a dictionary of strings: a value that is a number, bool, null, array or object; or no object at all. */
export const invalidDictionary: fc.Arbitrary<unknown> = fc.oneof(
  fc.tuple(label, fc.constantFrom<unknown>(1, true, null, ['a'], { a: 'b' })).map(([k, v]) => ({ [k]: v })),
  fc.constantFrom<unknown>('clave=valor', ['a', 'b'], 5),
);
