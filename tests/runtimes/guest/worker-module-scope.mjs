// A Worker written the usual way (as Hono apps and most Worker examples are): the handler built once at
// module scope, where workerd refuses random values, timers and I/O. Construction must need none of them.
import { createResponsesHandler } from '@openresponses/server';

// (Named exports of a Worker module are entry points to workerd: only the default one here.)
const handler = createResponsesHandler({ apiKeys: ['module-scope-key'] });

export default { fetch: (request) => handler(request) };
