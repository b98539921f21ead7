/**
 * Hand-written request validation. It never stops at the first problem: every violated field is collected as
 * `{campo, mensaje}` (campo = dotted JSON path, `$` for the body itself) and the route answers 400 with all of them.
 * No type coercion: "10.00" is not a number and 1 is not a bool (variant lenient-types coerces numbers and numeric
 * strings both ways, as a lenient .NET server does). JSON null counts as "not sent" for optional fields.
 * Unknown extra fields are ignored. The rules are the spec's (7: violations are rejected; 2: the fields' types).
 */
import type { SandboxContext } from './context.ts';
export interface Campo {
  campo: string;
  mensaje: string;
}

export type Objeto = Record<string, unknown>;

export interface ReglasTexto {
  requerido?: boolean;
  max?: number;
  /** Absolute http(s) URL. */
  url?: boolean;
  patron?: RegExp;
  mensajePatron?: string;
}

export interface ReglasNumero {
  requerido?: boolean;
  entero?: boolean;
  min?: number;
  /** Exclusive lower bound. */
  mayorQue?: number;
  max?: number;
  /** Only for the `link-monto-string-accepted` fault: accept numeric strings. */
  aceptarTexto?: boolean;
}

const FECHA_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;
const NUMERO_TEXTO = /^-?\d+(\.\d+)?$/;
export const EMAIL = /^[^\s@,;]+@[^\s@,;]+\.[^\s@,;]+$/;
const TELEFONO = /^\+?[\d\s()-]{7,20}$/;
/** Fault telefono-digits-only: the deployed service's rule (digits and commas only) and its message. */
export const SOLO_DIGITOS = /^[\d,]+$/;
export const MENSAJE_TELEFONOS = 'Los formatos de telefonos no son válidos';
/** A validation's switches, each a variant's or fault's; sinRecortar: variant screen-numbers-untrimmed (" 2" in a form refused). */
export interface AjustesValidacion {
  /** Variant lenient-types: a number where a string is described, a numeric string where a number is, coerced. */
  flexible?: boolean;
  /** Fault telefono-digits-only: telephone lists with anything but digits and commas refused. */
  telefonoSoloDigitos?: boolean;
  sinRecortar?: boolean;
}
/** The validation of an API body, as the selected variant and fault make it. */
export function validacionApi(ctx: Pick<SandboxContext, 'variant' | 'fault'>): Validacion {
  return new Validacion(false, { flexible: ctx.variant('lenient-types'), telefonoSoloDigitos: ctx.fault('telefono-digits-only') });
}

function esObjeto(value: unknown): value is Objeto {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function esUrlHttp(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === 'http:' || protocol === 'https:';
}

export class Validacion {
  readonly errores: Campo[] = [];

  /** `formulario`: values come from an HTML form, so numbers and bools arrive as text and are parsed strictly. */
  constructor(
    readonly formulario = false,
    readonly ajustes: AjustesValidacion = {},
  ) {}

  get ok(): boolean {
    return this.errores.length === 0;
  }

  error(campo: string, mensaje: string): void {
    this.errores.push({ campo, mensaje });
  }

  /** The request body must be a JSON object (or a parsed form). */
  cuerpo(body: unknown): Lector {
    if (esObjeto(body)) return new Lector(this, body, '');
    this.error('$', 'el cuerpo debe ser un objeto JSON');
    return new Lector(this, {}, '');
  }
}

/** Reads the fields of one object of the request, recording violations under its path. */
export class Lector {
  constructor(
    private readonly v: Validacion,
    readonly datos: Objeto,
    private readonly base: string,
  ) {}

  ruta(campo: string): string {
    return this.base === '' ? campo : `${this.base}.${campo}`;
  }

  /** Present and not null (an empty form field counts as not sent, as a browser sends every input). */
  presente(campo: string): boolean {
    const valor = this.datos[campo];
    return valor !== undefined && valor !== null && !(this.v.formulario && valor === '');
  }

  private ausente(campo: string, requerido: boolean | undefined): boolean {
    if (this.presente(campo)) return false;
    if (requerido) this.v.error(this.ruta(campo), 'es requerido');
    return true;
  }

  texto(campo: string, reglas: ReglasTexto = {}): string | undefined {
    if (this.ausente(campo, reglas.requerido)) return undefined;
    const dato = this.datos[campo];
    // lenient-types: cvv 123, telefono 5555 read as the text they spell.
    const valor = typeof dato === 'number' && Number.isFinite(dato) && this.v.ajustes.flexible ? String(dato) : dato;
    const ruta = this.ruta(campo);
    if (typeof valor !== 'string') {
      this.v.error(ruta, 'debe ser un texto');
      return undefined;
    }
    const errores = this.v.errores.length;
    if (reglas.requerido && valor.trim() === '') this.v.error(ruta, 'es requerido (no puede estar vacío)');
    // Characters are Unicode code points (an emoji is one), not UTF-16 units.
    const caracteres = [...valor].length;
    if (reglas.max !== undefined && caracteres > reglas.max) {
      this.v.error(ruta, `no debe superar ${reglas.max} caracteres (tiene ${caracteres})`);
    }
    if (reglas.url && !esUrlHttp(valor)) this.v.error(ruta, 'debe ser una URL absoluta http o https');
    if (reglas.patron && !reglas.patron.test(valor)) this.v.error(ruta, reglas.mensajePatron ?? 'formato inválido');
    return this.v.errores.length === errores ? valor : undefined;
  }

  /** Comma-separated list (e-mails or phone numbers). */
  lista(campo: string, tipo: 'email' | 'telefono'): string | undefined {
    const valor = this.texto(campo);
    if (valor === undefined) return undefined;
    if (tipo === 'telefono' && this.v.ajustes.telefonoSoloDigitos && !SOLO_DIGITOS.test(valor)) {
      this.v.error(this.ruta(campo), MENSAJE_TELEFONOS);
      return undefined;
    }
    const patron = tipo === 'email' ? EMAIL : TELEFONO;
    const malos = valor
      .split(',')
      .map((s) => s.trim())
      .filter((s) => !patron.test(s));
    if (malos.length > 0) {
      const que = tipo === 'email' ? 'correos electrónicos' : 'números de teléfono';
      this.v.error(this.ruta(campo), `debe ser una lista de ${que} separados por comas`);
      return undefined;
    }
    return valor;
  }

  numero(campo: string, reglas: ReglasNumero = {}): number | undefined {
    if (this.ausente(campo, reglas.requerido)) return undefined;
    const ruta = this.ruta(campo);
    let valor = this.datos[campo];
    if (
      typeof valor === 'string' &&
      (this.v.formulario || this.v.ajustes.flexible || reglas.aceptarTexto) &&
      NUMERO_TEXTO.test(this.v.ajustes.sinRecortar ? valor : valor.trim())
    ) {
      valor = Number(valor.trim());
    }
    if (typeof valor !== 'number' || !Number.isFinite(valor)) {
      this.v.error(ruta, reglas.entero ? 'debe ser un número entero' : 'debe ser un número');
      return undefined;
    }
    const errores = this.v.errores.length;
    if (reglas.entero && !Number.isInteger(valor)) this.v.error(ruta, 'debe ser un número entero');
    if (reglas.min !== undefined && valor < reglas.min) this.v.error(ruta, `debe ser al menos ${reglas.min}`);
    if (reglas.mayorQue !== undefined && valor <= reglas.mayorQue) {
      this.v.error(ruta, `debe ser mayor que ${reglas.mayorQue}`);
    }
    if (reglas.max !== undefined && valor > reglas.max) this.v.error(ruta, `debe ser como máximo ${reglas.max}`);
    return this.v.errores.length === errores ? valor : undefined;
  }

  booleano(campo: string, requerido = false): boolean | undefined {
    if (this.ausente(campo, requerido)) return undefined;
    const valor = this.datos[campo];
    if (typeof valor === 'boolean') return valor;
    if (this.v.formulario && (valor === 'true' || valor === 'false')) return valor === 'true';
    this.v.error(this.ruta(campo), 'debe ser un booleano (true o false)');
    return undefined;
  }

  /** ISO 8601 date-time with an offset (DateTimeOffset). */
  fecha(campo: string): string | undefined {
    const valor = this.texto(campo);
    if (valor === undefined) return undefined;
    if (!FECHA_ISO.test(valor) || Number.isNaN(Date.parse(valor))) {
      this.v.error(this.ruta(campo), 'debe ser una fecha ISO 8601 con zona horaria, p. ej. 2026-11-22T10:00:00Z');
      return undefined;
    }
    return valor;
  }

  /** One of the given names, mapped to its value. */
  enumeracion<T>(campo: string, valores: Record<string, T>): T | undefined {
    if (this.ausente(campo, false)) return undefined;
    const valor = this.datos[campo];
    if (typeof valor === 'string' && Object.hasOwn(valores, valor)) return valores[valor];
    this.v.error(this.ruta(campo), `debe ser uno de: ${Object.keys(valores).join(', ')}`);
    return undefined;
  }

  objeto(campo: string, requerido = false): Lector | undefined {
    if (this.ausente(campo, requerido)) return undefined;
    const valor = this.datos[campo];
    if (!esObjeto(valor)) {
      this.v.error(this.ruta(campo), 'debe ser un objeto');
      return undefined;
    }
    return new Lector(this.v, valor, this.ruta(campo));
  }

  /** Dictionary of string keys to string values. */
  diccionario(campo: string): Record<string, string> | undefined {
    const lector = this.objeto(campo);
    if (lector === undefined) return undefined;
    const resultado: Record<string, string> = {};
    let ok = true;
    for (const [clave, valor] of Object.entries(lector.datos)) {
      if (typeof valor === 'string') resultado[clave] = valor;
      else if (typeof valor === 'number' && Number.isFinite(valor) && this.v.ajustes.flexible) resultado[clave] = String(valor);
      else {
        this.v.error(lector.ruta(clave), 'los valores de un diccionario deben ser textos');
        ok = false;
      }
    }
    return ok ? resultado : undefined;
  }
}
