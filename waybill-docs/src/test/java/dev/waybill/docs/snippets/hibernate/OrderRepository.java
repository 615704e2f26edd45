package dev.waybill.docs.snippets.hibernate;

import java.util.UUID;

import org.springframework.data.jpa.repository.JpaRepository;

// tag::repository[]
public interface OrderRepository extends JpaRepository<Order, UUID> {}
// end::repository[]
