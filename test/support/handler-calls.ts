import 'reflect-metadata';

/** A controller class and the names of the handler methods to watch. */
export type WatchedHandlers = [controller: { prototype: object }, methods: string[]];

/**
 * Records which controller instance each call of the given handler methods ran on, so a test can tell a front that
 * answers before Nest's pipeline from the Nest route. The wrappers keep the methods' metadata (routes, OpenAPI), so
 * install them before the applications are built; restore() puts the originals back.
 */
export function recordHandlerCalls(targets: WatchedHandlers[]): { callsOn(instance: unknown): number; restore(): void } {
  const calls: unknown[] = [];
  const restores: (() => void)[] = [];
  for (const [controller, methods] of targets) {
    const prototype = controller.prototype as Record<string, unknown>;
    for (const method of methods) {
      const original = prototype[method] as (...args: unknown[]) => unknown;
      const wrapper = function (this: unknown, ...args: unknown[]) {
        calls.push(this);
        return original.apply(this, args);
      };
      for (const key of Reflect.getMetadataKeys(original)) Reflect.defineMetadata(key, Reflect.getMetadata(key, original), wrapper);
      Object.defineProperty(wrapper, 'name', { value: method });
      prototype[method] = wrapper;
      restores.push(() => (prototype[method] = original));
    }
  }
  return {
    callsOn: (instance) => calls.filter((self) => self === instance).length,
    restore: () => restores.forEach((restore) => restore()),
  };
}
