/**
 * The browser payer's pressing: which control pays or goes on (or, for follow, means leaving), pressed once when it
 * is ready, and the wait for what follows — ending as soon as something does (the outcome caught, a new document, a
 * frame moving on, a message or a next step rendered).
 */
import { NoFormError, PayerError } from './errors.ts';
import type { Session } from './browser-session.ts';
import { bodyScope, MOVED_ON, type FillScope, type PageContext, type Part } from './browser-frames.ts';
import { fold } from './fields.ts';
import { bare, REFUSAL_WORDS } from './form.ts';
import { controls, watchPage, type Control, type Shown } from './in-page.ts';
import { goOnButton, meansGoOn, meansLeave } from './steps.ts';

/**
 * The control that pays or goes on: on the payment form, its button whose words mean going on (steps.ts), else
 * its only button that does not leave, else its first submit button, else the form submitted as Enter does; on a
 * page whose fields are in no form (a shell), the page's control whose words mean going on.
 */
export async function controlToPress(ctx: PageContext, parts: Part[]): Promise<Pressing> {
  const scopes = parts[0]!.scope.isForm
    ? [parts[0]!.scope]
    : [
        await bodyScope(ctx, parts[0]!.frame),
        ...parts
          .slice(1)
          .filter((p) => p.scope.isForm)
          .map((p) => p.scope),
      ];
  const seen: string[] = [];
  for (const scope of scopes) {
    const mode = scope.isForm ? 'form' : 'page';
    const { list } = await scope.evaluate(controls, [mode, null, '', ''] as const);
    const i = goOnButton({ buttons: list.map((c) => ({ value: '', text: c.text })) });
    if (i !== undefined) return { scope, mode, index: i, text: list[i]!.text };
    if (scope.isForm) {
      const first = list.findIndex((c) => c.submits && !meansLeave(c.text));
      if (first >= 0) return { scope, mode, index: first, text: list[first]!.text };
      if (!list.some((c) => c.submits)) return { scope, mode, index: -1, text: '(the form submitted as Enter does)' };
    }
    seen.push(...list.map((c) => `"${c.text}"`));
  }
  throw new NoFormError(
    `no control of the page at ${bare(parts[0]!.frame.url())} means paying or going on: it shows ` +
      `${seen.slice(0, 12).join(', ') || 'none'}`,
  );
}

/**
 * Presses the control once, as a customer does, when it is ready (a button the page's script enables later is
 * waited for, within the browser's step bound). Returns what the page showed just before; undefined when the
 * press started a navigation at once.
 */
export async function pressOnce(_ctx: PageContext, session: Session, pressing: Pressing): Promise<Shown | undefined> {
  const until = Date.now() + session.stepMs;
  for (;;) {
    let before: Shown | null | undefined;
    try {
      before = (await pressing.scope.evaluate(controls, [pressing.mode, pressing.index, REFUSAL_WORDS.source, pressing.text] as const))
        .before;
    } catch (err) {
      // The navigation it starts may end the call's context: that is the submission going out.
      if (MOVED_ON.test((err as Error).message)) return undefined;
      throw err;
    }
    if (before) return before;
    if (Date.now() >= until)
      throw new PayerError(`"${pressing.text}" was not ready to press (disabled or hidden) ${session.stepMs} ms after the page showed it`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Presses the control and waits for what follows, ending as soon as something does: the outcome's redirect caught
 * (a form's, or a script's window.location), a new document, or — a script's submission — a message, words of
 * refusal, or a next step rendered in the page. A page where nothing at all follows within the browser's bound
 * is the suite's own error (PayerError), never the target's: the payment was sent once and is not sent again.
 */
export async function pressAndWait(ctx: PageContext, session: Session, pressing: Pressing): Promise<string | undefined> {
  const page = session.page;
  const bound = session.stepMs;
  const never = new Promise<undefined>(() => {});
  const loaded = page.waitForEvent('domcontentloaded', { timeout: bound }).then(
    () => 'a new document',
    () => undefined,
  );
  const inFrame =
    pressing.scope.frame === page.mainFrame()
      ? never
      : pressing.scope.frame.waitForNavigation({ timeout: bound, waitUntil: 'domcontentloaded' }).then(
          () => 'the frame moved on',
          () => never,
        );
  // A person presses once the page has loaded, its frames included: a frame whose script is not yet running would
  // miss the press's message (the card never tokenised), and nothing would follow.
  // (Bounded: a page whose load never ends, a resource that hangs, is still pressed.)
  await page.waitForLoadState('load', { timeout: Math.min(bound, LOAD_MS) }).catch(() => undefined);
  const before = await pressOnce(ctx, session, pressing);
  // (A watch ended by a navigation is answered by `loaded`.)
  const watched = before
    ? pressing.scope.frame.evaluate(watchPage, [before, REFUSAL_WORDS.source, bound] as const).then(
        (what) => what || undefined,
        () => never,
      )
    : never;
  const what = await Promise.race([session.settled().then(() => 'the outcome'), loaded, inFrame, watched]);
  if (session.outcome || session.error) return what;
  if (what === undefined) {
    session.error ??= nothingFollowed(pressing.text, bound);
    return what;
  }
  if (what === 'a new document') {
    // A page that moves on by itself (an intermediate page): give it a moment to reach the outcome.
    // (A page showing its outcome in #estado has arrived.)
    const final = await page.evaluate(() => document.querySelector('#estado') !== null).catch(() => false);
    if (!final) await page.waitForLoadState('networkidle', { timeout: 1_500 }).catch(() => undefined);
  }
  return what;
}

/** How long a press waits for the page's load event (its frames included) before pressing anyway. */
const LOAD_MS = 10_000;

export function nothingFollowed(pressed: string, ms: number): string {
  return (
    `nothing the payer can read followed "${pressed}" within ${ms} ms: no navigation, no message, no next step ` +
    `(the payment was sent once and is not sent again)`
  );
}

/** The control to press: where, among which controls, which one and what it says. */
export interface Pressing {
  scope: FillScope;
  mode: 'form' | 'page';
  /** In the list `controls` makes; -1 submits the form as Enter does. */
  index: number;
  text: string;
}

/** Words of going back, and of cancelling: which of the controls that leave (meansLeave) a meaning asks for first. */
export const BACK = /(^|[^a-z])(volver|regres|atras|back|return|retorn|voltar)/;
export const CANCEL = /(^|[^a-z])(cancel|anular|salir|exit|cerrar|close)/;
export const MEANINGS = {
  back: 'going back (Volver, Regresar, Atrás, Back, Return; else Cancelar, Cancel)',
  cancel: 'cancelling (Cancelar, Anular, Cancel; else Volver, Back)',
  'go-on': 'paying or going on (Pagar, Continuar, Confirmar, Pay, Continue…)',
} as const;

/** The control a customer would press for `meaning`, among those shown. */
export function controlMeaning(list: Control[], meaning: 'back' | 'cancel' | 'go-on'): number | undefined {
  const ready = (i: number): boolean => list[i]!.ready;
  const find = (test: (words: string) => boolean): number | undefined => {
    const i = list.findIndex((c, j) => ready(j) && test(c.text));
    return i >= 0 ? i : undefined;
  };
  if (meaning === 'go-on') return find(meansGoOn);
  const [first, then] = meaning === 'back' ? [BACK, CANCEL] : [CANCEL, BACK];
  return find((w) => meansLeave(w) && first.test(fold(w))) ?? find((w) => meansLeave(w) && then.test(fold(w)));
}
