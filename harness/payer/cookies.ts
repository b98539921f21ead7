/** The HTTP payer's cookie jar: just enough of RFC 6265 for hosted screens (domain, path, expiry). */
interface Cookie {
  name: string;
  value: string;
  domain: string;
  hostOnly: boolean;
  path: string;
  expires?: number;
}

export class CookieJar {
  #cookies: Cookie[] = [];

  store(url: string, setCookie: string | string[] | undefined): void {
    if (setCookie === undefined) return;
    const u = new URL(url);
    for (const line of Array.isArray(setCookie) ? setCookie : [setCookie]) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const cookie: Cookie = {
        name: pair.slice(0, eq).trim(),
        value: pair.slice(eq + 1).trim(),
        domain: u.hostname,
        hostOnly: true,
        path: u.pathname.slice(0, u.pathname.lastIndexOf('/') + 1) || '/',
      };
      for (const attribute of attributes) {
        const [key = '', ...rest] = attribute.split('=');
        const value = rest.join('=').trim();
        const k = key.trim().toLowerCase();
        if (k === 'path' && value.startsWith('/')) cookie.path = value;
        else if (k === 'domain' && value) {
          cookie.domain = value.replace(/^\./, '').toLowerCase();
          cookie.hostOnly = false;
        } else if (k === 'max-age' && /^-?\d+$/.test(value)) cookie.expires = Date.now() + Number(value) * 1000;
        else if (k === 'expires' && cookie.expires === undefined && !Number.isNaN(Date.parse(value))) cookie.expires = Date.parse(value);
      }
      this.#cookies = this.#cookies.filter((c) => !(c.name === cookie.name && c.domain === cookie.domain && c.path === cookie.path));
      if (cookie.expires === undefined || cookie.expires > Date.now()) this.#cookies.push(cookie);
    }
  }

  header(url: string): string | undefined {
    const u = new URL(url);
    const now = Date.now();
    this.#cookies = this.#cookies.filter((c) => c.expires === undefined || c.expires > now);
    const matching = this.#cookies.filter(
      (c) =>
        (c.hostOnly ? u.hostname === c.domain : u.hostname === c.domain || u.hostname.endsWith(`.${c.domain}`)) &&
        (u.pathname === c.path || u.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)),
    );
    return matching.length === 0 ? undefined : matching.map((c) => `${c.name}=${c.value}`).join('; ');
  }
}
