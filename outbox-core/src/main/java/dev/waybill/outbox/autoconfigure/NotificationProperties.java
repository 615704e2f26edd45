package dev.waybill.outbox.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * How relays learn that another instance committed outbox rows, under
 * {@code waybill.notifications.*}: PostgreSQL {@code LISTEN/NOTIFY}, which needs a database
 * session of its own, or polling where there is none (behind a transaction-mode pooler).
 *
 * @since 0.1
 */
public class NotificationProperties {

	/**
	 * How the relay is woken by other instances' commits: 'auto' tests LISTEN/NOTIFY at start-up
	 * and polls where it does not work (a transaction-mode pooler); 'listen' always listens;
	 * 'poll' never does.
	 */
	private Mode mode = Mode.AUTO;

	/**
	 * JDBC URL of a connection straight to PostgreSQL (or through a session-mode pool) for the
	 * LISTEN connection, when the application's DataSource goes through a transaction-mode pooler.
	 * Empty: the LISTEN connection comes from the application's DataSource. A DataSource bean
	 * annotated @WaybillNotificationsDataSource takes precedence.
	 */
	private @Nullable String url;

	/** User of waybill.notifications.url; empty: spring.datasource.username. */
	private @Nullable String username;

	/** Password of waybill.notifications.url; empty: spring.datasource.password. */
	private @Nullable String password;

	/**
	 * How often the relay looks for other instances' commits when it does not listen: each look
	 * is one claim.
	 */
	private Duration pollInterval = Duration.ofMillis(100);

	public Mode getMode() {
		return this.mode;
	}

	public void setMode(Mode mode) {
		this.mode = mode;
	}

	public @Nullable String getUrl() {
		return this.url;
	}

	public void setUrl(@Nullable String url) {
		this.url = url;
	}

	public @Nullable String getUsername() {
		return this.username;
	}

	public void setUsername(@Nullable String username) {
		this.username = username;
	}

	public @Nullable String getPassword() {
		return this.password;
	}

	public void setPassword(@Nullable String password) {
		this.password = password;
	}

	public Duration getPollInterval() {
		return this.pollInterval;
	}

	public void setPollInterval(Duration pollInterval) {
		this.pollInterval = pollInterval;
	}

	/**
	 * How the relay is woken by other instances' commits.
	 */
	public enum Mode {

		/** Test LISTEN/NOTIFY at start-up; poll where it does not work. */
		AUTO,

		/** Always LISTEN. */
		LISTEN,

		/** Always poll, every {@code waybill.notifications.poll-interval}. */
		POLL

	}

}
