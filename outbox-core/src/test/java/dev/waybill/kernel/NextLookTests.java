package dev.waybill.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class NextLookTests {

	@Test
	void theFirstLookIsDueAtOnce() {
		assertThat(new NextLook(Duration.ofSeconds(1)).left()).isNull();
	}

	@Test
	void afterALookTheNextIsDueWhenWhatItFoundComesDueOrThePollIntervalEndsWhicheverIsFirst() {
		NextLook look = new NextLook(Duration.ofSeconds(10));
		look.looked(Duration.ofSeconds(3));
		assertThat(look.left()).isBetween(Duration.ofSeconds(2), Duration.ofSeconds(3));
		look.looked(Duration.ofMinutes(5));
		assertThat(look.left()).as("at most the poll interval").isBetween(Duration.ofSeconds(9), Duration.ofSeconds(10));
	}

	@Test
	void aLookIsDueAtOnceWhenWhatItFoundIsDueOrAfterAChange() {
		NextLook look = new NextLook(Duration.ofSeconds(10));
		look.looked(Duration.ZERO);
		assertThat(look.left()).isNull();
		look.looked(Duration.ofSeconds(5));
		look.changed();
		assertThat(look.left()).isNull();
	}

}
