package dev.waybill.outbox.hibernate.app;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.persistence.autoconfigure.EntityScan;

import dev.waybill.outbox.hibernate.jpa.OutboxStateEntity;

/** A Spring Boot + Spring Data JPA application that uses Waybill. */
@SpringBootApplication
@EntityScan(basePackageClasses = { TestApplication.class, OutboxStateEntity.class })
public class TestApplication {

}
