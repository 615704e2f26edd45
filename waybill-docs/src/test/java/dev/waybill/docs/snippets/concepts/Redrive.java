package dev.waybill.docs.snippets.concepts;

import java.util.List;
import java.util.UUID;

import dev.waybill.outbox.OutboxAdmin;

class Redrive {

  void redrive(OutboxAdmin outboxAdmin, UUID scopeId) {
    // tag::redrive[]
    outboxAdmin.redrive(List.of(scopeId));          // these scopes
    outboxAdmin.redriveDestination("orders.placed"); // every dead scope with a message for it
    outboxAdmin.redriveAll();
    // end::redrive[]
  }

}
