/** A problem with the configuration or the environment, told to the user as one line with the fix. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
