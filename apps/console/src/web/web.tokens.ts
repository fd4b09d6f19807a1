/** Absolute path of the folder holding the console's index.html, styles and scripts. */
export const WEB_ROOT = Symbol('WebRoot');
