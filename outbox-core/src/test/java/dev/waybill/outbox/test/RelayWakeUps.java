package dev.waybill.outbox.test;

import java.util.Locale;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;

import dev.waybill.outbox.internal.relay.PostgresNotificationListener;
import dev.waybill.outbox.internal.relay.WakeUpMode;

/**
 * How an application's relay learns of other instances' commits, for tests and benchmarks in
 * other modules that must know which wake-up they measure: the mode its notification listener
 * decided on ({@code waybill.notifications.mode}), as the relay's health shows it.
 */
public final class RelayWakeUps {

	private final PostgresNotificationListener listener;

	private RelayWakeUps(PostgresNotificationListener listener) {
		this.listener = listener;
	}

	/**
	 * Returns the wake-ups of an application's relay.
	 * @param beans the application's beans
	 * @return its wake-ups
	 */
	public static RelayWakeUps of(BeanFactory beans) {
		return new RelayWakeUps(beans.getBean(PostgresNotificationListener.class));
	}

	/**
	 * Returns the mode in effect.
	 * @return {@code "listen"} or {@code "poll"}, or {@literal null} while the start-up check runs
	 */
	public @Nullable String mode() {
		WakeUpMode mode = this.listener.modeInEffect();
		return (mode != null) ? mode.name().toLowerCase(Locale.ROOT) : null;
	}

	/**
	 * Returns whether the listener holds its {@code LISTEN} connection.
	 * @return whether it listens now
	 */
	public boolean listening() {
		return this.listener.isListening();
	}

}
