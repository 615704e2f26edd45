package dev.waybill.outbox.test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import javax.sql.DataSource;

import org.awaitility.Awaitility;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * PostgreSQL backends for fault tests: finding one that waits on a lock, terminating one.
 */
public final class Backends {

	private Backends() {
	}

	/**
	 * Waits up to 4 seconds for a backend that waits on a lock while running a statement that
	 * contains {@code queryFragment}.
	 * @param dataSource where to look at {@code pg_stat_activity}
	 * @param queryFragment a part of the blocked statement's text
	 * @return the backend's pid
	 */
	public static int awaitBlocked(DataSource dataSource, String queryFragment) {
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		int[] pid = new int[1];
		Awaitility.await().atMost(Duration.ofSeconds(4)).pollInterval(Duration.ofMillis(20)).until(() -> {
			List<Integer> pids = jdbc.queryForList("SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
					+ "AND query LIKE ?", Integer.class, "%" + queryFragment + "%");
			if (pids.isEmpty()) {
				return false;
			}
			pid[0] = pids.get(0);
			return true;
		});
		return pid[0];
	}

	/**
	 * Terminates a backend, as an administrator or a crash does, from a connection of its own.
	 * @param pid the backend's pid
	 */
	public static void terminate(int pid) {
		try (Connection admin = TestPostgres.get().connect(); Statement kill = admin.createStatement()) {
			kill.execute("SELECT pg_terminate_backend(" + pid + ")");
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not terminate backend " + pid, ex);
		}
	}

}
