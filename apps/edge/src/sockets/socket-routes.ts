import { CLIENT_APIS, type ClientApi } from '#libs/providers';
import { type EdgeRoute, sessionRoute } from '../http/endpoint-kinds.js';
import { type SocketSessions } from './socket-sessions.service.js';

/** The sessions service, as the socket routes are given it at boot. */
export interface SocketServices {
  readonly sockets: SocketSessions;
}

/** A client API's socket route: the handshake admitted by the sessions, then one session per socket. */
const socketRoute = (api: ClientApi): EdgeRoute<SocketServices> =>
  sessionRoute<SocketServices>(
    api.route,
    (services, req) => services.sockets.admit(api, req),
    (services, req, socket) => Promise.resolve(services.sockets.serve(api, req, socket)),
  );

/** The APIs whose clients also speak over a WebSocket (`ClientApi.socket`), each at its own route. */
export const SOCKET_ROUTES: ReadonlyArray<EdgeRoute<SocketServices>> = [socketRoute(CLIENT_APIS.responses)];
