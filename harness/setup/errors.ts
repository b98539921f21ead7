/** A bad or missing setting: the message names the variable, its meaning and an example (one line, never a secret). */
export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(
    message: string,
    readonly variable: string,
  ) {
    super(message);
  }
}
