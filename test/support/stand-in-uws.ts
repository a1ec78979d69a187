// A stand-in for uWebSockets.js's module, for running buildApp in process (tests, the `path`
// bench): its app keeps the GET handler registered for each route pattern and ignores the rest.
import type { UwsApp, UwsHandler, UwsModule } from '../../runtime/http/uws.js';

export function standInUws(): { uws: UwsModule; handlers: Map<string, UwsHandler> } {
  const handlers = new Map<string, UwsHandler>();
  const app = {
    get(pattern: string, handler: UwsHandler) {
      handlers.set(pattern, handler);
      return app;
    },
    head: () => app,
    options: () => app,
    any: () => app,
    listen: () => undefined,
  };
  return { uws: { App: () => app as unknown as UwsApp } as unknown as UwsModule, handlers };
}
