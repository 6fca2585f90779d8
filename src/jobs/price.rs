//! Prices as users write them: `1075.20 JPY/month`. Parsed strictly, so that
//! a comparison never divides by a typo, and normalised to a month so that
//! prices quoted per hour and per month can be set side by side.

use std::fmt;

use serde::Serialize;
use thiserror::Error;

/// Hours in a month as cloud price sheets count them (365 × 24 / 12).
pub const HOURS_PER_MONTH: f64 = 730.0;
/// Days in a month (365 / 12).
pub const DAYS_PER_MONTH: f64 = 365.0 / 12.0;

#[derive(Debug, Error, PartialEq)]
#[error("'{text}' is not a price: {why} (expected AMOUNT CURRENCY/PERIOD, e.g. \"1075.20 JPY/month\")")]
pub struct PriceError {
    pub text: String,
    pub why: String,
}

/// What a price is quoted per.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Period {
    Hour,
    Day,
    Month,
    Year,
}

impl Period {
    pub fn name(self) -> &'static str {
        match self {
            Period::Hour => "hour",
            Period::Day => "day",
            Period::Month => "month",
            Period::Year => "year",
        }
    }
    /// How many of this period make a month.
    pub fn per_month(self) -> f64 {
        match self {
            Period::Hour => HOURS_PER_MONTH,
            Period::Day => DAYS_PER_MONTH,
            Period::Month => 1.0,
            Period::Year => 1.0 / 12.0,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Price {
    /// The amount as given, per `period`.
    pub amount: f64,
    /// ISO 4217 code, upper case (`JPY`, `USD`).
    pub currency: String,
    pub period: Period,
}

impl Price {
    pub fn parse(text: &str) -> Result<Price, PriceError> {
        let fail = |why: &str| PriceError {
            text: text.to_string(),
            why: why.to_string(),
        };
        let t = text.trim();
        let (amount_text, rest) = t
            .split_once(char::is_whitespace)
            .ok_or_else(|| fail("no currency after the amount"))?;
        let (currency, period) = rest
            .trim()
            .split_once('/')
            .ok_or_else(|| fail("no period: write CURRENCY/month, /year, /day or /hour"))?;
        let amount =
            parse_amount(amount_text).ok_or_else(|| fail(&format!("'{amount_text}' is not an amount")))?;
        if amount <= 0.0 {
            return Err(fail("the amount must be more than 0"));
        }
        let currency = currency.trim();
        if currency.len() != 3 || !currency.chars().all(|c| c.is_ascii_alphabetic()) {
            return Err(fail(&format!(
                "'{currency}' is not a currency code (three letters: JPY, USD, EUR)"
            )));
        }
        let period = match period.trim().to_ascii_lowercase().as_str() {
            "month" | "mo" => Period::Month,
            "year" | "yr" => Period::Year,
            "day" => Period::Day,
            "hour" | "hr" | "h" => Period::Hour,
            other => {
                return Err(fail(&format!(
                    "'{other}' is not a period (month, year, day or hour)"
                )));
            }
        };
        Ok(Price {
            amount,
            currency: currency.to_ascii_uppercase(),
            period,
        })
    }

    /// The price of one month.
    pub fn monthly(&self) -> f64 {
        self.amount * self.period.per_month()
    }
}

impl fmt::Display for Price {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}/{}", self.amount, self.currency, self.period.name())
    }
}

/// Digits with an optional decimal part; commas only as thousands separators
/// (`1,075.20`), because a comma in another place is a decimal comma we would misread.
fn parse_amount(text: &str) -> Option<f64> {
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    if int.is_empty() || (text.contains('.') && frac.is_empty()) {
        return None;
    }
    if !frac.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let groups: Vec<&str> = int.split(',').collect();
    let grouped_ok = groups.len() == 1
        || (!groups[0].is_empty() && groups[0].len() <= 3 && groups[1..].iter().all(|g| g.len() == 3));
    if !grouped_ok || !groups.iter().all(|g| g.chars().all(|c| c.is_ascii_digit())) {
        return None;
    }
    let plain = format!("{}.{}", groups.concat(), if frac.is_empty() { "0" } else { frac });
    plain.parse::<f64>().ok().filter(|x| x.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_prices_parse() {
        let ssd = Price::parse("1075.20 JPY/month").unwrap();
        assert_eq!(ssd.amount, 1075.20);
        assert_eq!(ssd.currency, "JPY");
        assert_eq!(ssd.period, Period::Month);
        assert_eq!(Price::parse("1,075.20 jpy/month").unwrap().amount, 1075.20);
        let hdd = Price::parse("659.46 JPY/month").unwrap();
        assert!((ssd.monthly() / hdd.monthly() - 1.6304).abs() < 1e-4);
    }

    #[test]
    fn periods_normalise_to_a_month() {
        assert_eq!(Price::parse("0.1 USD/hour").unwrap().monthly(), 73.0);
        assert_eq!(Price::parse("120 EUR/year").unwrap().monthly(), 10.0);
        assert!((Price::parse("1 USD/day").unwrap().monthly() - 30.4167).abs() < 1e-3);
    }

    #[test]
    fn malformed_prices_say_why() {
        for (bad, why) in [
            ("1075.20", "no currency"),
            ("1075.20 JPY", "no period"),
            ("abc JPY/month", "not an amount"),
            ("1.075,20 EUR/month", "not an amount"),
            ("10,00 EUR/month", "not an amount"),
            ("1. USD/month", "not an amount"),
            ("-5 USD/month", "not an amount"),
            ("0 USD/month", "more than 0"),
            ("10 dollars/month", "not a currency code"),
            ("10 USD/week", "not a period"),
            ("", "no currency"),
        ] {
            let err = Price::parse(bad).unwrap_err().to_string();
            assert!(err.contains(why), "{bad}: {err}");
            assert!(err.contains("e.g. \"1075.20 JPY/month\""), "{err}");
        }
    }
}
