import { jest } from '@jest/globals';

/**
 * An end-to-end test drives whole gateways (edges, router, worker, console, mock vendors) over
 * HTTP, Postgres and Redis: one that takes a second alone took over Jest's 5 s default (a unit
 * test's bound) when CI's two workers shared two cores with other runs. Hooks and tests that need
 * more still say so themselves.
 */
jest.setTimeout(30_000);
