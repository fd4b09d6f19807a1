import { type Redis } from 'ioredis';

type Stream = NonNullable<Redis['stream']>;

/**
 * Commands one connection sends in one turn of the event loop leave in one socket write: the
 * first corks the socket, and the turn's check phase (setImmediate, after every I/O callback of
 * the turn) uncorks it. Under load the quota scripts of every request parsed in a turn go out
 * together, as ioredis's auto-pipelining sent them, without its cost: a Pipeline object per turn,
 * and commands held back while the previous pipeline waits for its replies. The bench measured
 * that cost as the edge's largest source of promoted garbage (about 6 KB a request at one
 * connection), which made its young-generation collections twice as long.
 */
export function coalesceWrites(client: Redis): void {
  let corked: Stream | null = null;
  const uncork = (): void => {
    corked?.uncork();
    corked = null;
  };
  const send = client.sendCommand.bind(client);
  client.sendCommand = (command, stream) => {
    const socket = client.stream;
    if (corked === null && stream === undefined && client.status === 'ready' && socket?.writable) {
      socket.cork();
      corked = socket;
      setImmediate(uncork);
    }
    return send(command, stream);
  };
}
