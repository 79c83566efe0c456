"""The shared-memory mailbox a confined child writes its replies into.

The zygote maps one region per child before forking it. The child appends protocol frames and
keeps a small header current (bytes used, the case it is running and when that case started);
it makes no system call to report, and the zygote is woken only by the child's exit or a
deadline, never once per message. Whatever the child wrote is read after it is dead and is
validated like anything else that crosses the boundary: the child can lie here, and the zygote
bounds every claim (sizes, case order, and deadlines it also enforces on its own clock).
"""

from __future__ import annotations

import mmap
import os
import struct
import time
from typing import Any

from sandbox import framing, protocol

# used bytes, running case (-1: not in a case), overflowed flag, done flag, case start (monotonic)
HEADER = struct.Struct("<IiiId")
BODY = 64


class Mailbox:
    """One child's region: created by the zygote before fork, written by the child after it."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.region = mmap.mmap(-1, BODY + capacity, flags=mmap.MAP_SHARED)
        HEADER.pack_into(self.region, 0, 0, -1, 0, 0, 0.0)

    # -- the child's side -------------------------------------------------------------

    def send(self, message: protocol.Reply) -> None:
        """Append one frame; a reply past the capacity ends the child (flagged as overflow)."""
        frame = protocol.encode_reply(message)
        used, current, _, _, started = HEADER.unpack_from(self.region, 0)
        if used + len(frame) > self.capacity:
            HEADER.pack_into(self.region, 0, used, current, 1, 0, started)
            os._exit(0)
        self.region[BODY + used : BODY + used + len(frame)] = frame
        HEADER.pack_into(self.region, 0, used + len(frame), current, 0, 0, started)

    def start_case(self, index: int) -> None:
        used = HEADER.unpack_from(self.region, 0)[0]
        HEADER.pack_into(self.region, 0, used, index, 0, 0, time.monotonic())

    def mark_done(self) -> None:
        """The child wrote its last word: the zygote need not wait for its exit status."""
        used, current, overflowed, _, started = HEADER.unpack_from(self.region, 0)
        HEADER.pack_into(self.region, 0, used, current, overflowed, 1, started)

    # -- the zygote's side ------------------------------------------------------------

    def running(self) -> tuple[int, float]:
        """(case index, its start time) as the child claims them; -1 when not in a case."""
        _, current, _, _, started = HEADER.unpack_from(self.region, 0)
        return current, started

    def overflowed(self) -> bool:
        return bool(HEADER.unpack_from(self.region, 0)[2] != 0)

    def done(self) -> bool:
        return bool(HEADER.unpack_from(self.region, 0)[3] != 0)

    def raw(self) -> bytes:
        """The frames the child wrote, unparsed (the host validates them)."""
        used = min(HEADER.unpack_from(self.region, 0)[0], self.capacity)
        return self.region[BODY : BODY + used]

    def messages(self) -> list[dict[str, Any]]:
        """Every complete frame the child wrote; raises ProtocolError on garbage."""
        return framing.FrameReader(max_frame=self.capacity).feed(self.raw())

    def close(self) -> None:
        self.region.close()
