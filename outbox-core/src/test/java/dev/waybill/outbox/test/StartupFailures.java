package dev.waybill.outbox.test;

import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;

/**
 * Finds why a test application context failed to start.
 */
public final class StartupFailures {

	private StartupFailures() {
	}

	/**
	 * Asserts that the context failed because of an invalid property and returns that failure.
	 * @param context a context that should have failed
	 * @return the invalid-property exception in the failure's cause chain
	 */
	public static InvalidConfigurationPropertyValueException invalidProperty(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		Throwable cause = context.getStartupFailure();
		while (cause != null && !(cause instanceof InvalidConfigurationPropertyValueException)) {
			cause = cause.getCause();
		}
		assertThat(cause).as("start-up failure caused by an invalid property").isNotNull();
		return (InvalidConfigurationPropertyValueException) cause;
	}

}
