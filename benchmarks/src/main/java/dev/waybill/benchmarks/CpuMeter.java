package dev.waybill.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import javax.sql.DataSource;

/**
 * CPU time spent during a stretch of a benchmark (Linux only; zeros elsewhere): by this JVM, by
 * the PostgreSQL backends serving this JVM's connections (found by their client ports), and by the
 * whole machine (busy time of all its processors, whoever used them). Divided by the messages of
 * the stretch it tells what each message cost, which the machine's other load does not change much.
 */
final class CpuMeter {

	private static final long TICK_NANOS = 10_000_000L; // USER_HZ 100

	private final DataSource dataSource;

	private long jvm;

	private long postgres;

	private long machineBusy;

	private long machineTotal;

	private long compiling;

	CpuMeter(DataSource dataSource) {
		this.dataSource = dataSource;
		start();
	}

	/** Starts a stretch. */
	void start() {
		this.jvm = jvmNanos();
		this.postgres = postgresNanos();
		long[] machine = machineTicks();
		this.machineBusy = machine[0];
		this.machineTotal = machine[1];
		this.compiling = compilingMillis();
	}

	/**
	 * Ends the stretch.
	 * @param messages the messages of the stretch
	 * @return what it cost
	 */
	String report(long messages) {
		long jvmUsed = jvmNanos() - this.jvm;
		long postgresUsed = postgresNanos() - this.postgres;
		long[] machine = machineTicks();
		double busy = (machine[1] - this.machineTotal == 0) ? 0
				: 100.0 * (machine[0] - this.machineBusy) / (machine[1] - this.machineTotal);
		return "CPU per message: JVM " + (jvmUsed / Math.max(1, messages) / 1000) + " us, its PostgreSQL backends "
				+ (postgresUsed / Math.max(1, messages) / 1000) + " us; machine busy " + Math.round(busy) + "%; JIT compiling "
				+ (compilingMillis() - this.compiling) + " ms";
	}

	/**
	 * The JIT compilers' time so far: a stretch with much of it measured code that was still being
	 * compiled, on cores the measured work needed.
	 */
	static long compilingMillis() {
		java.lang.management.CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
		return (compiler != null && compiler.isCompilationTimeMonitoringSupported()) ? compiler.getTotalCompilationTime() : 0;
	}

	/**
	 * The CPU time this JVM has used so far, all its threads together.
	 * @return nanoseconds, 0 where the platform does not tell
	 */
	static long jvmNanos() {
		java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
		return (os instanceof com.sun.management.OperatingSystemMXBean sun) ? sun.getProcessCpuTime() : 0;
	}

	private static long[] machineTicks() {
		try {
			String[] fields = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
			long total = 0;
			for (int i = 1; i < fields.length; i++) {
				total += Long.parseLong(fields[i]);
			}
			long idle = Long.parseLong(fields[4]) + Long.parseLong(fields[5]);
			return new long[] { total - idle, total };
		}
		catch (IOException | RuntimeException ex) {
			return new long[2];
		}
	}

	/**
	 * The CPU time a process of this machine has used so far (user and system), e.g. a PostgreSQL
	 * backend's, found by its pid in {@code pg_stat_activity}.
	 * @param pid the process
	 * @return nanoseconds, 0 when it ended or cannot be read
	 */
	static long processNanos(int pid) {
		try {
			String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
			String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
			return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * TICK_NANOS;
		}
		catch (IOException | RuntimeException ex) {
			return 0; // the process ended
		}
	}

	private long postgresNanos() {
		try {
			Set<String> sockets = new HashSet<>();
			try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
				for (Path fd : fds.toList()) {
					try {
						String target = Files.readSymbolicLink(fd).toString();
						if (target.startsWith("socket:[")) {
							sockets.add(target.substring(8, target.length() - 1));
						}
					}
					catch (IOException | RuntimeException ex) {
						// closed meanwhile
					}
				}
			}
			List<Integer> ports = new ArrayList<>();
			for (String table : List.of("/proc/self/net/tcp", "/proc/self/net/tcp6")) {
				for (String line : Files.readAllLines(Path.of(table))) {
					String[] fields = line.trim().split("\\s+");
					if (fields.length > 9 && fields[2].endsWith(":1538") && sockets.contains(fields[9])) {
						String local = fields[1];
						ports.add(Integer.parseInt(local.substring(local.indexOf(':') + 1), 16));
					}
				}
			}
			long total = 0;
			try (Connection connection = this.dataSource.getConnection();
					PreparedStatement statement = connection
						.prepareStatement("SELECT pid FROM pg_stat_activity WHERE client_port = ANY(?)")) {
				statement.setArray(1, connection.createArrayOf("int4", ports.toArray()));
				try (ResultSet rows = statement.executeQuery()) {
					while (rows.next()) {
						total += processNanos(rows.getInt(1));
					}
				}
			}
			return total;
		}
		catch (IOException | SQLException | RuntimeException ex) {
			return 0;
		}
	}

}
