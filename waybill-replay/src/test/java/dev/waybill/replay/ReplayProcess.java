package dev.waybill.replay;

import java.time.Duration;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import dev.waybill.kernel.OutboxTables;
import dev.waybill.kernel.RelayWakeUp;
import dev.waybill.replay.internal.JdbcReplays;

/**
 * A replay worker in a process of its own, for the crash test to kill. Arguments: JDBC URL, user,
 * password, schema.
 */
public final class ReplayProcess {

	private ReplayProcess() {
	}

	public static void main(String[] args) throws Exception {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(args[0]);
		config.setUsername(args[1]);
		config.setPassword(args[2]);
		config.setMaximumPoolSize(2);
		HikariDataSource dataSource = new HikariDataSource(config);
		JdbcReplays replays = new JdbcReplays(dataSource, OutboxTables.inSchema(args[3]),
				new DataSourceTransactionManager(dataSource), new RelayWakeUp(), Duration.ofMillis(50));
		replays.start();
		System.out.println("REPLAY WORKER STARTED");
		System.out.flush();
		Thread.currentThread().join(); // until killed
	}

}
