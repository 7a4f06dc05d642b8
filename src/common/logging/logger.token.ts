/** DI token of the application's JsonLogger. */
export const APP_LOGGER = Symbol('APP_LOGGER');
