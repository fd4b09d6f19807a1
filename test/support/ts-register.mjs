// `node --conditions=source --import ./test/support/ts-register.mjs apps/<app>/src/main.ts`
import { register } from 'node:module';

register('./ts-loader.mjs', import.meta.url);
