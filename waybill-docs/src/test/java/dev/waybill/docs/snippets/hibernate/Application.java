package dev.waybill.docs.snippets.hibernate;

import org.springframework.boot.persistence.autoconfigure.EntityScan;

import dev.waybill.outbox.hibernate.jpa.OutboxStateEntity;

// tag::entity-scan[]
@EntityScan(basePackageClasses = { Application.class, OutboxStateEntity.class })
// end::entity-scan[]
class Application {
}
