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
		int fix = cause.getMessage().indexOf(" Apply Waybill's changelog");
		String description = (fix > 0) ? cause.getMessage().substring(0, fix) : cause.getMessage();
		String action = (fix > 0) ? cause.getMessage().substring(fix + 1) : "See the README's \"A schema your DBA owns\".";
		return new FailureAnalysis(description, action, cause);
	}

}
