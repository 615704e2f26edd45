package dev.waybill.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.List;

import org.junit.jupiter.api.Test;

class ResultTableTests {

	private final Measurement relay = new Measurement("relay", "scopes of 1", "msg/s", List.of(4200.0, 3900.5, 5100.0),
			"100000 msgs");

	@Test
	void markdownShowsMedianMinMaxAndRunsPerFigure() {
		String markdown = new ResultTable(List.of(this.relay), List.of()).markdown();
		assertThat(markdown).startsWith("| benchmark | figure | unit | median | min | max | runs | note |\n"
				+ "|---|---|---|---:|---:|---:|---:|---|\n");
		assertThat(markdown).contains("| relay | scopes of 1 | msg/s | 4,200 | 3,901 | 5,100 | 3 | 100000 msgs |\n");
		assertThat(markdown).doesNotContain("| target |");
	}

	@Test
	void markdownListsTargetsAfterTheFiguresWithMissedOnesInBold() {
		String markdown = new ResultTable(List.of(this.relay),
				List.of(Target.atLeast("relay / broker", 0.44, 0.5, ">= 0.50"), Target.atMost("overhead", 1.2, 1.5, "<= 1.50")))
			.markdown();
		assertThat(markdown).contains("| target | goal | measured | result |\n");
		assertThat(markdown).contains("| relay / broker | >= 0.50 | 0.44 | **missed** |\n");
		assertThat(markdown).contains("| overhead | <= 1.50 | 1.20 | met |\n");
		assertThat(markdown.indexOf("| relay | scopes of 1")).isLessThan(markdown.indexOf("| target |"));
	}

	@Test
	void aPipeInACellIsEscaped() {
		Measurement piped = new Measurement("x", "a|b", "ms", List.of(1.0), "");
		assertThat(new ResultTable(List.of(piped), List.of()).markdown()).contains("| x | a\\|b | ms |");
	}

	@Test
	void numbersGetFewerDecimalsAsTheyGrow() {
		assertThat(ResultTable.number(1234567.8)).isEqualTo("1,234,568");
		assertThat(ResultTable.number(100)).isEqualTo("100");
		assertThat(ResultTable.number(42.34)).isEqualTo("42.3");
		assertThat(ResultTable.number(3.14159)).isEqualTo("3.14");
		assertThat(ResultTable.number(0.5)).isEqualTo("0.50");
	}

	@Test
	void csvHasOneLinePerFigureAndTargetWithPlainNumbers() {
		String csv = new ResultTable(List.of(this.relay), List.of(Target.atLeast("relay / broker", 0.44, 0.5, ">= 0.50")))
			.csv();
		assertThat(csv.split("\n")).containsExactly("kind,benchmark,figure,unit,median,min,max,runs,note",
				"figure,relay,scopes of 1,msg/s,4200.000,3900.500,5100.000,3,100000 msgs",
				"target,relay / broker,>= 0.50,ratio,0.440,,,,missed");
	}

	@Test
	void csvQuotesCellsWithCommasOrQuotes() {
		assertThat(ResultTable.csvLine(List.of("a,b", "say \"hi\"", "plain"))).isEqualTo("\"a,b\",\"say \"\"hi\"\"\",plain\n");
	}

	@Test
	void aMeasurementNeedsRuns() {
		assertThatIllegalArgumentException().isThrownBy(() -> new Measurement("relay", "scopes of 1", "msg/s", List.of(), ""))
			.withMessage("Measurement 'relay / scopes of 1' has no runs");
	}

}
