import { AsyncLocalStorage } from 'node:async_hooks';
import { type Context, type ContextManager, ROOT_CONTEXT } from '@opentelemetry/api';

/**
 * The active OTel context carried across awaits by AsyncLocalStorage. Registered only when
 * tracing is on: on Node 20 an AsyncLocalStorage in use costs every promise a hook, which the
 * hot path should not pay when nobody reads the spans. (The same as the SDK's
 * AsyncLocalStorageContextManager, which this project does not depend on directly.)
 */
export class AlsContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();

  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const target = thisArg === undefined ? fn : (fn.bind(thisArg) as F);
    return this.storage.run(context, target, ...args);
  }

  bind<T>(context: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const storage = this.storage;
    const fn = target as unknown as (...args: unknown[]) => unknown;
    return function (this: unknown, ...args: unknown[]) {
      return storage.run(context, () => fn.apply(this, args));
    } as unknown as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.storage.disable();
    return this;
  }
}
