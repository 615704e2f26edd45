/**
 * Spring Boot auto-configuration of Waybill's Hibernate integration.
 */
@NullMarked
package dev.waybill.outbox.hibernate.autoconfigure;

import org.jspecify.annotations.NullMarked;
