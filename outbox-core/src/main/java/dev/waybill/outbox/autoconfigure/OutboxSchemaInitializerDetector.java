package dev.waybill.outbox.autoconfigure;

import java.util.Set;

import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDatabaseInitializerDetector;

import dev.waybill.outbox.internal.jdbc.OutboxSchemaInitializer;

/**
 * Tells Spring Boot that {@link OutboxSchemaInitializer} initializes the database, so beans that
 * depend on database initialization (JPA, {@code JdbcTemplate} users) are created after it.
 */
final class OutboxSchemaInitializerDetector extends AbstractBeansOfTypeDatabaseInitializerDetector {

	@Override
	protected Set<Class<?>> getDatabaseInitializerBeanTypes() {
		return Set.of(OutboxSchemaInitializer.class);
	}

}
