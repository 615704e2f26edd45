package dev.waybill.outbox.internal.relay;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;

import dev.waybill.outbox.spi.OutboxStore;

/**
 * The stores a {@link Relay} relays besides its default one ({@link Relay#stores()}): what the
 * registry adds and removes, what this process's and other instances' commits say has work, and
 * which of them fail.
 *
 * @since 0.1
 */
public final class RelayStores {

	/** How long a validity check of an unavailable store's connection may take. */
	private static final int VALIDITY_TIMEOUT_SECONDS = 2;

	private final RelayLanes lanes;

	RelayStores(RelayLanes lanes) {
		this.lanes = lanes;
	}

	/**
	 * Relays a store from now on, in turn with the others, on the relay's own workers; due at once.
	 * @param name the store's name
	 * @param store the store
	 */
	public void add(String name, OutboxStore store) {
		this.lanes.add(name, store, null);
	}

	/**
	 * Relays a store from now on, as {@link #add(String, OutboxStore)}; while its database is
	 * unavailable, no worker claims from it: one thread checks once a poll interval whether it
	 * answers, and it is claimed from as soon as it does.
	 * @param name the store's name
	 * @param store the store
	 * @param database the store's database
	 */
	public void add(String name, OutboxStore store, DataSource database) {
		this.lanes.add(name, store, () -> answer(database));
	}

	/** Returns when a connection comes, within the pool's own timeout, and answers a validity check. */
	private static void answer(DataSource database) {
		try (Connection connection = database.getConnection()) {
			if (!connection.isValid(VALIDITY_TIMEOUT_SECONDS)) {
				throw new DataAccessResourceFailureException("A connection to the store's database did not answer a "
						+ "validity check within " + VALIDITY_TIMEOUT_SECONDS + " s");
			}
		}
		catch (SQLException ex) {
			throw new CannotGetJdbcConnectionException("No connection to the store's database", ex);
		}
	}

	/**
	 * Stops claiming from a store; the scopes the relay holds of it are still settled in it.
	 * @param name the store's name
	 */
	public void remove(String name) {
		this.lanes.remove(name);
	}

	/**
	 * Tells the relay that a commit (this process's, or another instance's it was notified of)
	 * wrote scopes to a store, so a worker claims from it now rather than at its next poll; a name
	 * it does not relay is ignored.
	 * @param name the store's name
	 */
	public void written(String name) {
		this.lanes.due(name);
	}

	/**
	 * Polls the stores through a probe, once a poll interval, instead of a claim from each.
	 * @param probe tells which of them have scopes due
	 */
	public void setProbe(StoreProbe probe) {
		this.lanes.setProbe(Objects.requireNonNull(probe, "probe must not be null"));
	}

	/**
	 * Returns the stores whose claims fail now: the others are relayed meanwhile, and
	 * {@link RelayStatus#claimsFailingFor()} is the default store's.
	 * @return how long and why, by store name; empty while every store's claims work
	 */
	public Map<String, String> failing() {
		return this.lanes.failing();
	}

}
