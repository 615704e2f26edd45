package dev.waybill.outbox.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.waybill.outbox.internal.jdbc.SchemaPrivilegeException;

/**
 * Explains in Spring Boot's start-up failure report a role that may not create what Waybill's
 * schema lacks, instead of Liquibase's stack trace with PostgreSQL's words at its bottom.
 */
class SchemaPrivilegeFailureAnalyzer extends AbstractFailureAnalyzer<SchemaPrivilegeException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, SchemaPrivilegeException cause) {
		return new FailureAnalysis(cause.getDescription(), cause.getAction(), cause);
	}

}
