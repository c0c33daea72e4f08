"""The Socket.IO client the bridge follows the feed with: python-socketio's, with the
service's events handled the moment their frame is read.

python-engineio reads each frame through `asyncio.wait_for`, which on Python 3.11 runs the
read in a task of its own and wakes the reader through a second future, and then hands the
message to one more new task: an event waits four turns of the loop between its frame and
its handler. On a loop that also writes to a thousand screens a turn takes milliseconds, and
the bridge's lag is mostly those turns. Here a frame is read under `asyncio.timeout` and
its message dispatched at once, in the order the frames came (a binary event's attachment
right after its header): one turn. A Socket.IO disconnect goes the library's way, in a
task, as it waits for this very read loop to end.
"""

import asyncio

import engineio
import socketio
from engineio import base_client, packet

DISCONNECT = "1"  # the Socket.IO packet type, the first character of a text message


class FeedEngine(engineio.AsyncClient):
    async def _read_loop_websocket(self):
        """python-engineio's loop (4.15), with the read under `asyncio.timeout` and messages
        dispatched inline; on any failure it ends the session as the library's does."""
        while self.state == "connected" and self.write_loop_task:
            try:
                async with asyncio.timeout(self.ping_interval + self.ping_timeout):
                    message = await self.ws.receive()
                if not isinstance(message.data, str | bytes):  # a close, an error
                    raise ConnectionError(f"the server sent {message.type.name}")
                pkt = packet.Packet(encoded_packet=message.data)
            except Exception as exc:  # a timeout, a closed socket, a bad frame: session over
                self.logger.info("read loop ends: %s: %s", type(exc).__name__, exc)
                await self.queue.put(None)
                break
            disconnect = isinstance(pkt.data, str) and pkt.data.startswith(DISCONNECT)
            if pkt.packet_type == packet.MESSAGE and not disconnect:
                await self._trigger_event("message", pkt.data, run_async=False)
            else:
                await self._receive_packet(pkt)
        if self.write_loop_task:
            await self.write_loop_task
        if self.state == "connected":
            await self._trigger_event("disconnect", self.reason.TRANSPORT_ERROR, run_async=False)
            if self in base_client.connected_clients:
                base_client.connected_clients.remove(self)
            await self._reset()


class FeedClient(socketio.AsyncClient):
    def _engineio_client_class(self):
        return FeedEngine
