/**
 * 4.9 DELETE /Cuenta: answers the 2.6 account record with its 2.7 businesses, then removes the account, its
 * businesses, their tokens, links and transactions, so its credentials, tokens and links stop working.
 */
import type { FastifyPluginAsync } from 'fastify';
import { requireAuth } from './auth.ts';
import type { Account, Business } from './store.ts';

function registroAplicativo(b: Business) {
  return {
    idAplicativo: b.idAplicativo,
    clientIdApi: b.clientIdApi,
    clientSecret: b.clientSecret,
    numeroCuenta: b.numeroCuenta,
    nombre: b.nombre,
    urlAplicativo: b.urlAplicativo,
    estaProductivo: b.estaProductivo,
    urlLogo: b.urlLogo,
    aplicaPagoConPuntos: b.aplicaPagoConPuntos,
    aplicaPagoConBitcoin: b.aplicaPagoConBitcoin,
    aplicaPagoConQuickPay: b.aplicaPagoConQuickPay,
    cuotasDisponibles: b.cuotasDisponibles,
    tapOnPhone: b.tapOnPhone,
  };
}

function registroCuenta(a: Account, aplicativos: Business[]) {
  return {
    idCuenta: a.idCuenta,
    emailLogin: a.emailLogin,
    tipoPersoneria: a.tipoPersoneria,
    nit: a.nit,
    nombreCompletoContacto: a.nombreCompletoContacto,
    nombreCuenta: a.nombreCuenta,
    nombreComercial: a.nombreComercial,
    razonSocial: a.razonSocial,
    fechaRegistro: a.fechaRegistro,
    actividadEconomica: a.actividadEconomica,
    direccion: a.direccion,
    urbanizacion: a.urbanizacion,
    calle: a.calle,
    local: a.local,
    aplicativos: aplicativos.map(registroAplicativo),
  };
}

export const accountsApi: FastifyPluginAsync = async (app) => {
  const ctx = app.sandbox;
  app.delete('/Cuenta', { onRequest: requireAuth('account') }, async (req) => {
    const { store } = ctx;
    const account = req.actor!.account;
    const aplicativos = account.aplicativos.flatMap((id) => store.businesses.get(id) ?? []);
    const registro = registroCuenta(account, aplicativos);
    if (ctx.fault('deleted-account-still-works')) return registro;

    const borrados = new Set(account.aplicativos);
    for (const [token, t] of store.tokens) if (borrados.has(t.idAplicativo) || t.idCuenta === account.idCuenta) store.tokens.delete(token);
    for (const [id, link] of store.links) {
      if (!borrados.has(link.idAplicativo) || ctx.variant('deletion-keeps-links')) continue;
      store.links.delete(id);
      store.linkCodes.delete(link.codigo);
    }
    for (const [id, tx] of store.transactions) if (borrados.has(tx.idAplicativo)) store.transactions.delete(id);
    for (const id of borrados) store.businesses.delete(id);
    store.accounts.delete(account.idCuenta);
    return registro;
  });
};
