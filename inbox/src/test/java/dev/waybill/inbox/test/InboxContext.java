package dev.waybill.inbox.test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.waybill.inbox.autoconfigure.WaybillInboxAutoConfiguration;
import dev.waybill.outbox.test.TestSchema;
import dev.waybill.outbox.test.WaybillContext;

/**
 * An {@link ApplicationContextRunner} set up like a Spring Boot JDBC application with Waybill's
 * outbox and inbox, its tables in the given schema.
 */
public final class InboxContext {

	private InboxContext() {
	}

	public static ApplicationContextRunner runner(TestSchema schema) {
		return WaybillContext.runner(schema.name())
			.withConfiguration(AutoConfigurations.of(WaybillInboxAutoConfiguration.class));
	}

}
