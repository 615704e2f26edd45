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
		return new FailureAnalysis("Waybill applies its tables (schema '" + cause.getSchema() + "') while the "
				+ "application starts, and could not connect to the database:\n\n    " + cause.getReason(),
				"Start PostgreSQL before the service (Compose depends_on with a health check, a Kubernetes init "
						+ "container, or let the platform restart it), or correct spring.datasource.url, username and "
						+ "password; create the database if it does not exist. The broker may be down when a service "
						+ "starts; its database may not.",
				cause);
	}

}
