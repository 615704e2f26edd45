package dev.waybill.outbox.test;

import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * A primary and its streaming standby of the test's own ({@link PrivatePostgres}), reached through
 * one multi-host JDBC URL with {@code targetServerType=primary}, as a service reaches a
 * Patroni-run or managed PostgreSQL: the driver connects to whichever of the two takes writes. The
 * test fails the primary over ({@link #failOver}) and, with asynchronous replication, can cut the
 * standby off first ({@link #cutStandby}) so that what the primary acknowledges next is lost.
 */
public final class ReplicatedPostgres implements AutoCloseable {

	/** How the primary's commits wait for the standby. */
	public enum Replication {

		/** A commit returns once the standby has flushed it: a failover loses no acknowledged commit. */
		SYNCHRONOUS,

		/** A commit returns once the primary has flushed it: a failover may lose the last ones. */
		ASYNCHRONOUS

	}

	private static final Duration CAUGHT_UP = Duration.ofSeconds(30);

	private final PrivatePostgres primary;

	private final PrivatePostgres standby;

	/** The standby's {@code primary_conninfo} before {@link #cutStandby()}. */
	private String primaryConnection = "";

	private ReplicatedPostgres(PrivatePostgres primary, PrivatePostgres standby) {
		this.primary = primary;
		this.standby = standby;
	}

	/**
	 * Starts a primary with the database {@link PrivatePostgres#DATABASE}, and a standby of it that
	 * has caught up.
	 * @param name what the pair is for, a word in their directories' names
	 * @param replication whether commits wait for the standby
	 * @return the running pair
	 */
	public static ReplicatedPostgres start(String name, Replication replication) throws IOException, InterruptedException {
		PrivatePostgres primary = PrivatePostgres.start(name + "-primary");
		try {
			PrivatePostgres standby = PrivatePostgres.standbyOf(primary, name + "-standby");
			ReplicatedPostgres pair = new ReplicatedPostgres(primary, standby);
			pair.awaitStandbyStreaming();
			if (replication == Replication.SYNCHRONOUS) {
				// Set once the standby streams, and after its base backup: the promoted standby has
				// no standby to wait for, and takes writes alone.
				primary.execute("ALTER SYSTEM SET synchronous_standby_names = '*'", "SELECT pg_reload_conf()");
				pair.awaitSynchronous();
			}
			return pair;
		}
		catch (IOException | InterruptedException | RuntimeException ex) {
			primary.close();
			throw ex;
		}
	}

	/**
	 * Returns the JDBC URL that finds the primary among both servers.
	 * @param database the database's name
	 * @return a multi-host URL with {@code targetServerType=primary}
	 */
	public String url(String database) {
		return "jdbc:postgresql://127.0.0.1:" + this.primary.port() + ",127.0.0.1:" + this.standby.port() + "/" + database
				+ "?targetServerType=primary";
	}

	/**
	 * Returns a database through {@link #url(String)}.
	 * @param database its name
	 * @return the database
	 */
	public TestPostgres database(String database) {
		return TestPostgres.at(url(database), PostgresBinaries.SERVER_USER, "", toString());
	}

	/**
	 * Returns the server that was primary when the pair started.
	 * @return the first primary
	 */
	public PrivatePostgres primary() {
		return this.primary;
	}

	/**
	 * Returns the server that was standby when the pair started.
	 * @return the first standby
	 */
	public PrivatePostgres standby() {
		return this.standby;
	}

	/**
	 * Stops the standby's replication: it keeps what it has and receives nothing more until a
	 * failover, so a commit the primary acknowledges from now on is lost by the failover.
	 */
	public void cutStandby() {
		this.primaryConnection = this.standby.query("SHOW primary_conninfo");
		this.standby.execute("ALTER SYSTEM SET primary_conninfo = ''", "SELECT pg_reload_conf()");
		awaitStreaming(false);
	}

	/** Lets a standby {@link #cutStandby cut off} stream again, and waits until it caught up. */
	public void reconnectStandby() {
		this.standby.execute("ALTER SYSTEM SET primary_conninfo = '" + this.primaryConnection.replace("'", "''") + "'",
				"SELECT pg_reload_conf()");
		awaitStreaming(true);
	}

	/**
	 * Fails over as a crashed primary does: stops it at once (connections cut, no shutdown
	 * checkpoint) and promotes the standby, which takes writes when this returns.
	 */
	public void failOver() throws IOException, InterruptedException {
		this.primary.stop(true);
		this.standby.promote();
	}

	/** Waits until the standby streams from the primary and has replayed all it was sent. */
	public void awaitStandbyStreaming() {
		awaitStreaming(true);
	}

	private void awaitSynchronous() {
		long deadline = System.nanoTime() + CAUGHT_UP.toNanos();
		while (!"sync".equals(this.primary.query("SELECT coalesce(max(sync_state), '') FROM pg_stat_replication"))) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("The standby " + this.standby + " did not become synchronous within " + CAUGHT_UP);
			}
			java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(20).toNanos()); // between polls
		}
	}

	private void awaitStreaming(boolean streaming) {
		long deadline = System.nanoTime() + CAUGHT_UP.toNanos();
		String sql = "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming' AND replay_lsn >= "
				+ "pg_current_wal_lsn()";
		while (System.nanoTime() < deadline) {
			try (Connection connection = this.primary.database("postgres").connect();
					Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(sql)) {
				result.next();
				if ((result.getInt(1) > 0) == streaming) {
					return;
				}
			}
			catch (SQLException ex) {
				throw new IllegalStateException("Cannot read the replication state of " + this.primary, ex);
			}
			java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(20).toNanos()); // between polls
		}
		throw new IllegalStateException("The standby " + this.standby + (streaming ? " did not catch up with " : " still streams from ")
				+ this.primary + " within " + CAUGHT_UP);
	}

	@Override
	public void close() {
		this.standby.close();
		this.primary.close();
	}

	@Override
	public String toString() {
		return "primary " + this.primary + " with standby " + this.standby;
	}

}
