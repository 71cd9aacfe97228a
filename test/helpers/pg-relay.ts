/**
 * A TCP relay to PostgreSQL that can misbehave as a network does in a partition or a failover:
 * stop passing the server's bytes on (`holding`), reset every connection through it (`reset`:
 * a real RST, so the client reads ECONNRESET), lose the answer to a message (`loseAnswerTo`:
 * the server gets it and acts on it; the client's connection is reset instead of answered), or
 * the message itself (`loseMessage`: the client's connection is reset as it is sent).
 */
import { type AddressInfo, createServer, type Socket, connect as tcpConnect } from 'node:net';

export async function pgRelay(databaseUrl: string) {
  const server = new URL(databaseUrl);
  const state = {
    holding: false,
    loseAnswerTo: undefined as string | undefined,
    loseMessage: undefined as string | undefined,
  };
  const inbound: Socket[] = [];
  const sockets: Socket[] = [];
  const relay = createServer((client) => {
    const outbound = tcpConnect(Number(server.port || 5432), server.hostname);
    inbound.push(client);
    sockets.push(client, outbound);
    let losing = false;
    client.on('data', (chunk: Buffer) => {
      if (state.loseMessage && chunk.includes(state.loseMessage)) {
        state.loseMessage = undefined; // once
        client.resetAndDestroy();
        return;
      }
      if (state.loseAnswerTo && chunk.includes(state.loseAnswerTo)) {
        state.loseAnswerTo = undefined; // once
        losing = true;
      }
      outbound.write(chunk);
    });
    outbound.on('data', (chunk) => {
      if (losing) client.resetAndDestroy();
      else if (!state.holding) client.write(chunk);
    });
    for (const socket of [client, outbound])
      socket
        .on('error', () => {})
        .on('close', () => {
          client.destroy();
          outbound.destroy();
        });
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const url = new URL(databaseUrl);
  url.host = `127.0.0.1:${(relay.address() as AddressInfo).port}`;
  return {
    /** `databaseUrl` through the relay. */
    url: url.toString(),
    state,
    /** Resets every client connection made so far. */
    reset() {
      for (const socket of inbound.splice(0)) socket.resetAndDestroy();
    },
    close() {
      for (const socket of sockets) socket.destroy();
      relay.close();
    },
  };
}
