/**
 * The words the sandbox builds its catalogs from. Brand and agency names are the fictitious
 * ones long used in product documentation, domains end in `.example` (RFC 2606), so nothing
 * made up here can be mistaken for a real advertiser.
 */

export interface Market {
  /** Shown in account names, e.g. "Contoso Outdoor DE" (the United Kingdom is "UK" there, as people write it). */
  readonly code: string;
  /** ISO 3166-1 alpha-2 (the United Kingdom is GB): where the account's callers ring from. */
  readonly country: string;
  readonly currency: string;
  readonly timeZone: string;
  /** How often the market occurs among made-up accounts. */
  readonly weight: number;
}

export const MARKETS: readonly Market[] = [
  { code: 'DE', country: 'DE', currency: 'EUR', timeZone: 'Europe/Berlin', weight: 6 },
  { code: 'US', country: 'US', currency: 'USD', timeZone: 'America/New_York', weight: 6 },
  { code: 'US', country: 'US', currency: 'USD', timeZone: 'America/Los_Angeles', weight: 2 },
  { code: 'UK', country: 'GB', currency: 'GBP', timeZone: 'Europe/London', weight: 4 },
  { code: 'FR', country: 'FR', currency: 'EUR', timeZone: 'Europe/Paris', weight: 3 },
  { code: 'NL', country: 'NL', currency: 'EUR', timeZone: 'Europe/Amsterdam', weight: 2 },
  { code: 'ES', country: 'ES', currency: 'EUR', timeZone: 'Europe/Madrid', weight: 2 },
  { code: 'IT', country: 'IT', currency: 'EUR', timeZone: 'Europe/Rome', weight: 2 },
  { code: 'AT', country: 'AT', currency: 'EUR', timeZone: 'Europe/Vienna', weight: 1 },
  { code: 'CH', country: 'CH', currency: 'CHF', timeZone: 'Europe/Zurich', weight: 2 },
  { code: 'SE', country: 'SE', currency: 'SEK', timeZone: 'Europe/Stockholm', weight: 1 },
  { code: 'DK', country: 'DK', currency: 'DKK', timeZone: 'Europe/Copenhagen', weight: 1 },
  { code: 'NO', country: 'NO', currency: 'NOK', timeZone: 'Europe/Oslo', weight: 1 },
  { code: 'PL', country: 'PL', currency: 'PLN', timeZone: 'Europe/Warsaw', weight: 1 },
  { code: 'JP', country: 'JP', currency: 'JPY', timeZone: 'Asia/Tokyo', weight: 1 },
  { code: 'AU', country: 'AU', currency: 'AUD', timeZone: 'Australia/Sydney', weight: 1 },
  { code: 'CA', country: 'CA', currency: 'CAD', timeZone: 'America/Toronto', weight: 1 },
  { code: 'BR', country: 'BR', currency: 'BRL', timeZone: 'America/Sao_Paulo', weight: 1 },
  { code: 'MX', country: 'MX', currency: 'MXN', timeZone: 'America/Mexico_City', weight: 1 },
];

/**
 * Countries of IANA time zones an account may be created with, beyond those of MARKETS (see
 * countryOf); the rest fall back to the currency's market, then to US.
 */
const ZONE_COUNTRIES: Readonly<Record<string, string>> = {
  'America/Chicago': 'US',
  'America/Denver': 'US',
  'America/Phoenix': 'US',
  'America/Anchorage': 'US',
  'Pacific/Honolulu': 'US',
  'America/Vancouver': 'CA',
  'America/Edmonton': 'CA',
  'America/Winnipeg': 'CA',
  'America/Halifax': 'CA',
  'Australia/Melbourne': 'AU',
  'Australia/Brisbane': 'AU',
  'Australia/Perth': 'AU',
  'Australia/Adelaide': 'AU',
  'Europe/Brussels': 'BE',
  'Europe/Luxembourg': 'LU',
  'Europe/Dublin': 'IE',
  'Europe/Lisbon': 'PT',
  'Europe/Helsinki': 'FI',
  'Europe/Prague': 'CZ',
  'Europe/Budapest': 'HU',
  'Europe/Athens': 'GR',
  'Europe/Bucharest': 'RO',
  'Europe/Istanbul': 'TR',
  'Asia/Kolkata': 'IN',
  'Asia/Singapore': 'SG',
  'Asia/Hong_Kong': 'HK',
  'Asia/Shanghai': 'CN',
  'Asia/Seoul': 'KR',
  'Asia/Dubai': 'AE',
  'Pacific/Auckland': 'NZ',
  'Africa/Johannesburg': 'ZA',
  'America/Argentina/Buenos_Aires': 'AR',
  'America/Bogota': 'CO',
  'America/Santiago': 'CL',
};

/** The country an account's callers ring from: its market's, or for a created account the one its time zone or currency suggests. */
export function countryOf(timeZone: string, currency: string): string {
  return (
    MARKETS.find((m) => m.timeZone === timeZone)?.country ??
    ZONE_COUNTRIES[timeZone] ??
    MARKETS.find((m) => m.currency === currency)?.country ??
    'US'
  );
}

/**
 * Area codes callers of a country ring from, the most frequent first: big cities' fixed-line
 * codes and mobile prefixes, without the trunk prefix (DE 30 is Berlin, GB 20 London, US 212
 * Manhattan). Countries without a list get a made-up two- or three-digit code.
 */
export const AREA_CODES: Readonly<Record<string, readonly string[]>> = {
  DE: ['30', '40', '89', '221', '69', '711', '211', '151', '160', '170', '171', '176', '341', '351', '511', '911'],
  US: ['212', '646', '718', '917', '310', '213', '415', '312', '617', '305', '202', '206', '404', '512', '702', '303'],
  GB: ['20', '121', '161', '113', '141', '131', '117', '7700', '7800', '7900', '114', '151', '191', '29'],
  FR: ['1', '6', '7', '4', '5', '3', '2', '9'],
  NL: ['20', '10', '70', '30', '6', '40', '50', '43'],
  ES: ['91', '93', '6', '96', '95', '94', '7', '971'],
  IT: ['02', '06', '3', '011', '081', '055', '051', '041'],
  AT: ['1', '664', '676', '699', '316', '732', '662', '512'],
  CH: ['44', '79', '43', '22', '31', '61', '21', '78', '76', '41'],
  SE: ['8', '70', '31', '40', '73', '18', '90', '13'],
  DK: ['33', '35', '20', '40', '42', '86', '98', '66'],
  NO: ['22', '9', '4', '55', '73', '51', '38'],
  PL: ['22', '5', '6', '12', '71', '61', '58', '42'],
  JP: ['3', '90', '80', '6', '70', '52', '92', '11', '45'],
  AU: ['2', '4', '3', '7', '8'],
  CA: ['416', '647', '514', '604', '403', '613', '905', '437', '780'],
  BR: ['11', '21', '31', '41', '51', '61', '71', '81', '19'],
  MX: ['55', '33', '81', '222', '664', '998', '442'],
};

/** Rough units of a currency per euro, so a click costs about the same everywhere. */
const CURRENCY_SCALE: Readonly<Record<string, number>> = {
  EUR: 1,
  USD: 1.08,
  GBP: 0.85,
  CHF: 0.95,
  SEK: 11.5,
  DKK: 7.46,
  NOK: 11.6,
  PLN: 4.3,
  JPY: 160,
  AUD: 1.65,
  CAD: 1.47,
  BRL: 5.9,
  MXN: 19,
};

/** Currencies outside the table (an account created with, say, INR) are priced as euros. */
export function currencyScale(currency: string): number {
  return CURRENCY_SCALE[currency] ?? 1;
}

export const BRANDS: readonly string[] = [
  'Contoso',
  'Northwind',
  'Fabrikam',
  'Adventure Works',
  'Tailspin',
  'Wingtip',
  'Litware',
  'Proseware',
  'Woodgrove',
  'Lucerne',
  'Alpine Ski House',
  'Coho',
  'Fourth Coffee',
  'Wide World',
  'Margie',
  'Trey',
  'Blue Yonder',
  'Humongous',
  'VanArsdel',
  'Relecloud',
  'Munson',
  'Southridge',
  'Lamna',
  'Fincher',
];

export const AGENCIES: readonly string[] = [
  'Northwind Media',
  'Blue Yonder Digital',
  'Fabrikam Performance',
  'Tailspin Search',
  'Proseware Agency Group',
  'Lucerne Ads',
  'Woodgrove Marketing',
  'Relecloud Partners',
  'Trey Research Media',
  'Litware Growth',
  'VanArsdel Interactive',
  'Wingtip Digital',
];

export const OFFICES: readonly string[] = [
  'Berlin',
  'Hamburg',
  'Munich',
  'London',
  'New York',
  'Zurich',
  'Vienna',
  'Amsterdam',
  'Stockholm',
  'Toronto',
];

export interface Theme {
  readonly label: string;
  readonly products: readonly string[];
  readonly modifiers: readonly string[];
  /** Interests and audiences for social ad sets. */
  readonly audiences: readonly string[];
  /** Median search cost per click in euros. */
  readonly cpc: number;
  /** Median order value in euros. */
  readonly orderValue: number;
}

export const THEMES: readonly Theme[] = [
  {
    label: 'Outdoor',
    products: ['hiking boots', 'rain jacket', 'tent', 'sleeping bag', 'trekking poles', 'backpack'],
    modifiers: ['waterproof', 'lightweight', 'ultralight', 'insulated', "women's", "men's", 'kids'],
    audiences: ['Hiking', 'Camping', 'Mountaineering'],
    cpc: 0.7,
    orderValue: 120,
  },
  {
    label: 'Fashion',
    products: ['sneakers', 'summer dress', 'denim jacket', 'wool coat', 'leather bag', 'sunglasses'],
    modifiers: ['vintage', 'organic cotton', 'slim fit', 'oversized', "women's", "men's"],
    audiences: ['Fashion', 'Streetwear', 'Sustainable fashion'],
    cpc: 0.45,
    orderValue: 85,
  },
  {
    label: 'Travel',
    products: ['city break', 'beach holiday', 'ski trip', 'hotel deals', 'last minute flights', 'cruise'],
    modifiers: ['all inclusive', 'family', 'luxury', 'cheap', 'weekend'],
    audiences: ['Travel', 'Frequent travelers', 'Adventure travel'],
    cpc: 0.9,
    orderValue: 640,
  },
  {
    label: 'Home',
    products: ['sofa', 'dining table', 'bed frame', 'floor lamp', 'garden furniture', 'rug'],
    modifiers: ['oak', 'scandinavian', 'modern', 'velvet', 'extendable', 'outdoor'],
    audiences: ['Interior design', 'Home improvement', 'Gardening'],
    cpc: 0.6,
    orderValue: 380,
  },
  {
    label: 'Electronics',
    products: ['headphones', 'laptop', 'smartwatch', 'robot vacuum', 'soundbar', 'e-reader'],
    modifiers: ['wireless', 'noise cancelling', 'refurbished', 'gaming', '4k', 'budget'],
    audiences: ['Technology', 'Gadgets', 'Gaming'],
    cpc: 0.8,
    orderValue: 260,
  },
  {
    label: 'Pets',
    products: ['dog food', 'cat litter', 'dog bed', 'cat tree', 'dog harness', 'pet insurance'],
    modifiers: ['grain free', 'organic', 'large breed', 'senior', 'puppy', 'orthopedic'],
    audiences: ['Dog owners', 'Cat owners', 'Pet lovers'],
    cpc: 0.5,
    orderValue: 55,
  },
  {
    label: 'Fitness',
    products: ['yoga mat', 'running shoes', 'dumbbells', 'gym membership', 'protein powder', 'exercise bike'],
    modifiers: ['adjustable', 'vegan', 'trail', 'non slip', 'home', 'beginner'],
    audiences: ['Fitness', 'Running', 'Yoga'],
    cpc: 0.65,
    orderValue: 70,
  },
  {
    label: 'Insurance',
    products: ['car insurance', 'home insurance', 'travel insurance', 'life insurance', 'bike insurance'],
    modifiers: ['cheap', 'comprehensive', 'annual', 'young driver', 'family'],
    audiences: ['New homeowners', 'Car owners', 'Young families'],
    cpc: 3.8,
    orderValue: 420,
  },
  {
    label: 'Software',
    products: ['project management software', 'crm', 'accounting software', 'password manager', 'vpn'],
    modifiers: ['cloud', 'small business', 'free', 'enterprise', 'open source'],
    audiences: ['Small business owners', 'IT decision makers', 'Startups'],
    cpc: 2.9,
    orderValue: 310,
  },
  {
    label: 'Beauty',
    products: ['face cream', 'shampoo', 'perfume', 'lipstick', 'sunscreen', 'hair dryer'],
    modifiers: ['natural', 'vegan', 'anti aging', 'sensitive skin', 'spf 50', 'professional'],
    audiences: ['Beauty', 'Skincare', 'Cosmetics'],
    cpc: 0.55,
    orderValue: 48,
  },
];

/** Words put before or after a product to make search terms people type. */
export const KEYWORD_PREFIXES: readonly string[] = ['buy', 'best', 'cheap', 'discount', 'compare'];
export const KEYWORD_SUFFIXES: readonly string[] = [
  'online',
  'sale',
  'near me',
  'price',
  'deals',
  'review',
  'shop',
  'delivery',
];

/** Seasonal promotions that name campaigns created later in an account's life, by month (0-11). */
export const PROMOTIONS: readonly string[] = [
  'New Year Sale',
  'Winter Clearance',
  'Spring Launch',
  'Easter',
  'Spring Sale',
  'Summer Preview',
  'Summer Sale',
  'Back to School',
  'Autumn Launch',
  'Autumn Deals',
  'Black Friday',
  'Christmas',
];

export const CALLS_TO_ACTION: readonly string[] = ['SHOP_NOW', 'LEARN_MORE', 'SIGN_UP', 'BOOK_NOW', 'GET_OFFER'];

export function titleCase(text: string): string {
  return text.replace(/(^|\s)([a-z])/g, (_, space: string, letter: string) => space + letter.toUpperCase());
}

export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}
