/**
 * Free content comes back as sent, byte for byte, on every channel that carries it: datosAdicionales keys and values
 * (2: "string keys to string values, free content"), idExterno (2.2), through the purchase response, the lookup
 * (4.8) and the webhook (6.1); nombreProducto, descripcionProducto and identificadorEnlaceComercio in the link record
 * (2.1, 2.4) and on the payment screen, read as the customer reads it (4.1 "Product name shown to the customer",
 * 2.4 "shown in the payment screen"); urlRedirect's own query on the URL the customer lands on (4.1 urlRedirect, 6.3: the outcome is added to
 * it). The values are drawn by fast-check (generators/free-content.ts) with the run's FC_SEED: digits with leading
 * zeros, numbers as strings, accents, quotes and markup, the maximum lengths, empty strings.
 */
import { parse } from 'node-html-parser';
import { describe } from 'vitest';
import { uniqueRef } from '../generators/bodies.ts';
import { draw, freeDescripcion, freeIdExterno, freeNombreProducto, freePairs, freeQuery, freeText } from '../generators/free-content.ts';
import { activate, createLink } from './flows/links.ts';
import { lookUp, webhookFor } from './flows/lookups.ts';
import { buy3ds, buyWallet, complete3ds } from './flows/purchases.ts';
import { observedLinkBody, payOnScreen } from './flows/screens.ts';
import {
  clauseTest,
  holds,
  pairsAsSent,
  paymentWentThrough,
  queryKept,
  redirectSeen,
  type TestHandle,
  textAsSent,
  webhookPairs,
} from '../harness/index.ts';

/** One seed per run when FC_SEED is unset; every failure names it, so FC_SEED=<it> draws the same values again. */
const RANDOM_SEED = (Date.now() ^ Math.floor(Math.random() * 0x7fffffff)) | 0;
const seedOf = (t: TestHandle): number => t.run.config.fastCheck.seed ?? RANDOM_SEED;
/** How many drawn cases a test sends: few, each is a purchase or a link (the edges are in every case). */
const casesOf = (t: TestHandle): number => Math.max(1, Math.min(2, t.run.config.fastCheck.numRuns));

describe('2 / 2.2 / 6.1 free content of a purchase comes back as sent', () => {
  clauseTest(
    {
      clauses: ['2.2-datos-adicionales-echo', '2-dictionary-type', '2.2-idexterno-echo', '6.1-webhook-datos-adicionales'],
      endpoint: 'POST /TransaccionCompra/Wallet',
      purchase: true,
    },
    'datosAdicionales and idExterno drawn (leading zeros, numbers as text, empty values, markup, accents) come back as sent in the response, the lookup and the webhook',
    async (t) => {
      const seed = seedOf(t);
      const receiver = await t.run.receiver();
      const cases = draw(freePairs, seed, casesOf(t)).map((pairs, i) => ({ pairs, idExterno: draw(freeIdExterno, seed + i, 1)[0]! }));
      for (const [i, { pairs, idExterno }] of cases.entries()) {
        const drawn = `drawn case ${i + 1} of ${cases.length}, FC_SEED=${seed}`;
        const { ex, response } = await buyWallet(t, {
          datosAdicionales: pairs,
          idExterno,
          configuracion: { urlWebhook: receiver.webhookUrl('libre') },
        });
        // 4.4 lists datosAdicionales and idExterno in the response: where it writes them, they are what was sent.
        if (response['datosAdicionales'] !== undefined && response['datosAdicionales'] !== null)
          t.soft(() =>
            pairsAsSent(response['datosAdicionales'], pairs, `datosAdicionales (response; ${drawn})`, '2.2-datos-adicionales-echo', ex),
          );
        if (response['idExterno'] !== undefined && response['idExterno'] !== null)
          t.soft(() => textAsSent(response['idExterno'], idExterno, `idExterno (response; ${drawn})`, '2.2-idexterno-echo', ex));
        const looked = await lookUp(t, response['idTransaccion']);
        t.soft(() =>
          pairsAsSent(
            looked.tx['datosAdicionales'],
            pairs,
            `datosAdicionales (lookup; ${drawn})`,
            ['2.2-datos-adicionales-echo', '2-dictionary-type'],
            looked.ex,
          ),
        );
        t.soft(() => textAsSent(looked.tx['idExterno'], idExterno, `idExterno (lookup; ${drawn})`, '2.2-idexterno-echo', looked.ex));
        const webhook = await webhookFor(t, response['idTransaccion'], ['6.1-webhook-on-success']);
        t.soft(() =>
          pairsAsSent(
            webhookPairs(webhook.json, pairs).pairs,
            pairs,
            `datosAdicionales (webhook; ${drawn})`,
            '6.1-webhook-datos-adicionales',
          ),
        );
      }
    },
  );
});

describe('2.1 / 2.4 the link record keeps its free text as sent', () => {
  clauseTest(
    {
      clauses: ['2.1-payment-link-types', '4.1-nombre-producto-max-500', '4.1-identificador-max-500', '2.4-descripcion-unbounded'],
      endpoint: 'POST /EnlacePago',
      needs: ['account'],
    },
    'nombreProducto, identificadorEnlaceComercio (up to 500 characters) and descripcionProducto drawn come back as sent in the link record',
    async (t) => {
      const seed = seedOf(t);
      for (let i = 0; i < casesOf(t); i++) {
        const drawn = `drawn case ${i + 1}, FC_SEED=${seed}`;
        const nombreProducto = draw(freeNombreProducto, seed + i, 1)[0]!;
        const descripcionProducto = draw(freeDescripcion, seed + i, 1)[0]!;
        // Unique per link (4.1: "intended to be unique"): the drawn text, cut to leave room for a suffix.
        const identificadorEnlaceComercio = `${[...draw(freeText(480), seed + i, 1)[0]!].slice(0, 480).join('')}-${Date.now().toString(36)}${i}`;
        const base = await observedLinkBody(t, { nombreProducto, identificadorEnlaceComercio, infoProducto: { descripcionProducto } });
        const { link } = await createLink(t, base);
        const { ex, record } = await activate(t, link.idEnlace);
        t.soft(() =>
          textAsSent(
            record.nombreProducto,
            nombreProducto,
            `nombreProducto (${drawn})`,
            ['2.1-payment-link-types', '4.1-nombre-producto-max-500'],
            ex,
          ),
        );
        t.soft(() =>
          textAsSent(
            record.infoProducto?.descripcionProducto,
            descripcionProducto,
            `infoProducto.descripcionProducto (${drawn})`,
            '2.4-descripcion-unbounded',
            ex,
          ),
        );
        const kept = (record as unknown as Record<string, unknown>)['identificadorEnlaceComercio'];
        // 2.1 does not list identificadorEnlaceComercio in the record: compared only where the record writes it.
        if (kept !== undefined && kept !== null)
          t.soft(() =>
            textAsSent(kept, identificadorEnlaceComercio, `identificadorEnlaceComercio (${drawn})`, '4.1-identificador-max-500', ex),
          );
      }
    },
  );
});

describe('4.1 / 6.3 the customer lands on urlRedirect with its own query kept', () => {
  clauseTest(
    { clauses: ['4.1-url-redirect', '6.3-redirect-outcome'], endpoint: 'flow', purchase: true },
    'urlRedirect …/gracias?pedido=A-17&… of a link and of a 3DS purchase: the customer lands with pedido=A-17 and the drawn values still there, the outcome added',
    async (t) => {
      const seed = seedOf(t);
      const query = draw(freeQuery, seed, 1)[0]!;
      const base = await observedLinkBody(t);
      const urlRedirect = `${base.configuracion.urlRedirect}?${new URLSearchParams(query).toString()}`;
      const { link } = await createLink(t, { ...base, configuracion: { ...base.configuracion, urlRedirect } });
      const outcome = await payOnScreen(t, link.urlEnlace);
      paymentWentThrough(outcome, 'the payment');
      redirectSeen(outcome, 'the payment');
      const clauses = ['4.1-url-redirect', '6.3-redirect-outcome'];
      t.soft(() => queryKept(outcome.params, query, clauses, `${outcome.location} (a link payment; FC_SEED=${seed})`));
      // The other door to urlRedirect: a 3DS purchase's (4.3), its outcome read at the receiver whatever the query.
      const receiver = await t.run.receiver();
      const purchase = await buy3ds(t, { urlRedirect: `${receiver.redirectUrl('3ds')}?${new URLSearchParams(query).toString()}` });
      const params = await complete3ds(t, purchase, ['4.3-url-completar', '6.3-redirect-outcome'], receiver.redirectUrl('3ds'));
      t.soft(() => queryKept(params, query, clauses, `the 3DS purchase's redirect (FC_SEED=${seed})`));
    },
  );
});

describe('4.1 / 2.4 the payment screen shows the product as it was sent', () => {
  // Markup, quotes and ampersands are text the merchant wrote: a screen that shows the product shows them as such (a
  // template that does not escape them turns them into tags, or swallows them). One line each, short: how a screen
  // lays out a long text or a line break is its own.
  const nombreProducto = `Taza <b>"Clásica"</b> & plato 'hondo' <script>alert("x")</script>`;
  const descripcionProducto = `Cerámica <i>esmaltada</i> & "mate" <img src=x onerror=alert(1)> 'apilable' — 00123`;
  clauseTest(
    { clauses: ['4.1-url-enlace-leads-to-screen', '2.4-descripcion-unbounded'], endpoint: 'POST /EnlacePago' },
    'nombreProducto and descripcionProducto with markup, quotes and & are shown on the payment screen as text, character for character',
    async (t) => {
      const nombre = `${nombreProducto} ${uniqueRef('ref')}`;
      const { link } = await createLink(t, await observedLinkBody(t, { nombreProducto: nombre, infoProducto: { descripcionProducto } }));
      const screen = await t.run.payer.openScreen(link.urlEnlace);
      holds(
        screen.status >= 200 && screen.status < 300,
        'payment-screen',
        '4.1-url-enlace-leads-to-screen',
        `${link.urlEnlace} opens the payment screen (2xx)`,
        `status ${screen.status}`,
      );
      // What the customer reads: tags dropped, character references decoded.
      const text = parse(screen.html).text;
      t.soft(() =>
        holds(
          text.includes(nombre),
          'screen-product',
          '4.1-url-enlace-leads-to-screen',
          `the screen shows nombreProducto as sent: ${JSON.stringify(nombre)}`,
          'not in the text of the screen (its markup read as tags, or changed)',
        ),
      );
      t.soft(() =>
        holds(
          text.includes(descripcionProducto),
          'screen-product',
          '2.4-descripcion-unbounded',
          `the screen shows infoProducto.descripcionProducto as sent: ${JSON.stringify(descripcionProducto)}`,
          'not in the text of the screen (missing, its markup read as tags, or changed)',
        ),
      );
    },
  );
});
