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
		return causedBy(context, InvalidConfigurationPropertyValueException.class);
	}

	/**
	 * Asserts that the context failed with an exception of a type in its cause chain and returns it.
	 * @param <T> the exception's type
	 * @param context a context that should have failed
	 * @param type the exception's type
	 * @return the first exception of that type in the failure's cause chain
	 */
	public static <T extends Throwable> T causedBy(AssertableApplicationContext context, Class<T> type) {
		assertThat(context).hasFailed();
		Throwable cause = context.getStartupFailure();
		while (cause != null && !type.isInstance(cause)) {
			cause = cause.getCause();
		}
		assertThat(cause).as("start-up failure caused by a %s", type.getSimpleName()).isNotNull();
		return type.cast(cause);
	}

}
