package dev.waybill.outbox.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.waybill.outbox.internal.jdbc.SchemaDatabaseUnreachableException;

/**
 * Explains a database Waybill could not reach at start-up in Spring Boot's start-up failure
 * report, instead of a stack trace whose reason is at the bottom of its cause chain.
 */
class SchemaDatabaseUnreachableFailureAnalyzer extends AbstractFailureAnalyzer<SchemaDatabaseUnreachableException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, SchemaDatabaseUnreachableException cause) {
		String description = "Waybill applies its tables (schema '" + cause.getSchema() + "') while the "
				+ "application starts, and could not connect to the database:\n\n    " + cause.getReason();
		String state = cause.getSqlState();
		if (state != null && state.startsWith("53")) {
			// Insufficient resources (53300 too many connections): the database runs, and is full.
			return new FailureAnalysis(description, "PostgreSQL runs but takes no more connections: max_connections, "
					+ "or the CONNECTION LIMIT of the role or the database, is reached (see pg_stat_activity for who holds "
					+ "them). Close idle clients or lower other services' pool sizes, raise the limit, or size this "
					+ "service's pool (spring.datasource.hikari.maximum-pool-size) within it; a service that starts "
					+ "while the database is full fails and must be started again.", cause);
		}
		return new FailureAnalysis(description,
				"Start PostgreSQL before the service (Compose depends_on with a health check, a Kubernetes init "
						+ "container, or let the platform restart it), or correct spring.datasource.url, username and "
						+ "password; create the database if it does not exist. The broker may be down when a service "
						+ "starts; its database may not.",
				cause);
	}

}
