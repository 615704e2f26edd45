package dev.waybill.docs.snippets.recurring;

import java.time.Instant;

import dev.waybill.replay.ReplayJob;
import dev.waybill.replay.ReplayRequest;
import dev.waybill.replay.ReplayTarget;
import dev.waybill.replay.Replays;

class Replay {

  void replay(Replays replays) {
    // tag::replay[]
    ReplayJob job = replays.start(ReplayRequest.all()
        .destination("orders")                               // original exchange; null = any
        .messageType("com.acme.OrderPlaced")                 // null = any
        .between(Instant.parse("2026-11-01T00:00:00Z"), null) // created_at window, to exclusive
        .to(ReplayTarget.queue("invoicing-v2"))              // or .original() (default), .exchange(name, key)
        .paced(500, 2000));                                  // 500 per batch, at most 2,000 messages/s
    replays.find(job.id());   // status, replayed, cursor (lastSequence of upperSequence), times
    replays.pause(job.id()); replays.resume(job.id()); replays.cancel(job.id());
    // end::replay[]
  }

}
